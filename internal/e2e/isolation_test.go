package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
)

// isoRequest is one request an isolation case makes with tenant A's token
// and tenant B's IDs, and the status it must get. own, when set, is the
// status B's own token gets for the same request: it shows the IDs are
// real, so A's 404 means "hidden", not "mistyped".
type isoRequest struct {
	query string
	body  any
	want  int
	own   int
	// check inspects the answer's body when want is a success, as a raw
	// JSON object: the cases cover every route, whatever it answers.
	check func(t *testing.T, f *isoFixture, out map[string]any)
}

// isolationCases holds, for every /v1 route ("METHOD pattern"), what tenant
// A's token gets when it names tenant B's resources. The test walks the
// router: a route added without a case here fails it.
var isolationCases = map[string][]isoRequest{
	"PUT /v1/tenants/{id}":                    {{body: map[string]any{"name": "taken over"}, want: 403}},
	"GET /v1/tenants":                         {{want: 403}},
	"GET /v1/tenants/{id}":                    {{want: 403}},
	"DELETE /v1/tenants/{id}":                 {{want: 403}},
	"POST /v1/tenants/{id}/tokens":            {{body: map[string]any{}, want: 403}},
	"DELETE /v1/tenants/{id}/tokens":          {{want: 403}},
	"POST /v1/tenants/{id}/portal":            {{body: map[string]any{}, want: 403}},
	"DELETE /v1/tenants/{id}/portal-sessions": {{want: 403}},
	"GET /v1/tenants/{id}/portal-branding":    {{want: 403}},
	"PUT /v1/tenants/{id}/portal-branding":    {{body: map[string]any{"product_name": "Hijacked"}, want: 403}},
	"GET /v1/portal/settings":                 {{want: 403}},
	"PUT /v1/portal/settings":                 {{body: map[string]any{"product_name": "Hijacked"}, want: 403}},
	"POST /v1/events":                         {{body: map[string]any{"type": "iso.x", "payload": map[string]any{}, "tenant_id": "{b}"}, want: 403}},
	"POST /v1/events/batch":                   {{body: map[string]any{"events": []any{map[string]any{"type": "iso.x", "payload": map[string]any{}}}}, want: 403}},
	"GET /v1/endpoints/{id}":                  {{want: 404, own: 200}},
	"PATCH /v1/endpoints/{id}":                {{body: map[string]any{"description": "hijacked", "enabled": false}, want: 404}},
	"DELETE /v1/endpoints/{id}":               {{want: 404}},
	"POST /v1/endpoints/{id}/secret/rotate":   {{body: map[string]any{"overlap": "0s"}, want: 404}},
	"GET /v1/endpoints/{id}/health":           {{want: 404, own: 200}},
	"POST /v1/endpoints/{id}/test":            {{body: map[string]any{}, want: 404}},
	"POST /v1/endpoints/{id}/recover":         {{body: map[string]any{"reason": "hijack"}, want: 404}},
	"GET /v1/deliveries/{id}":                 {{want: 404, own: 200}},
	"GET /v1/dead-letters/{id}":               {{want: 404, own: 200}},
	"POST /v1/dead-letters/{id}/redrive":      {{body: map[string]any{"reason": "hijack"}, want: 404}},
	"GET /v1/dead-letters/redrive/{job}":      {{want: 404, own: 200}},
	"GET /v1/openapi.json":                    {{want: 200}}, // public: the same document for everyone
	// The event-type catalog is the platform's, one for every tenant:
	// tenants read it and change nothing; it holds nothing of B's.
	"GET /v1/event-types":           {{want: 200}},
	"GET /v1/event-types/{name}":    {{want: 404}},
	"PUT /v1/event-types/{name}":    {{body: map[string]any{"description": "hijacked"}, want: 403}},
	"DELETE /v1/event-types/{name}": {{want: 403}},
	"GET /v1/endpoints": {
		{query: "?tenant_id={b}", want: 404, own: 200},
	},
	"GET /v1/deliveries": {
		{query: "?tenant_id={b}", want: 404, own: 200},
		{query: "?endpoint_id={b.ok}", want: 404, own: 200},
		{query: "?event_id={b.event}", want: 404, own: 200},
	},
	"GET /v1/events/{id}": {{want: 404, own: 200}},
	// B's own token would expunge the fixture's event: no own case.
	"POST /v1/events/{id}/expunge": {{body: map[string]any{"reason": "hijack"}, want: 404}},
	"GET /v1/tenants/{id}/expunge": {{want: 403}},
	"GET /v1/events": {
		{query: "?tenant_id={b}", want: 404, own: 200},
		{query: "?endpoint_id={b.ok}", want: 404, own: 200},
	},
	"GET /v1/dead-letters": {
		{query: "?tenant_id={b}", want: 404, own: 200},
		{query: "?endpoint_id={b.dead}", want: 404, own: 200},
	},
	"GET /v1/dead-letters/summary": {
		{query: "?tenant_id={b}", want: 404, own: 200},
	},
	"POST /v1/dead-letters/redrive": {
		{body: map[string]any{"tenant_id": "{b}"}, want: 404},
		{body: map[string]any{"tenant_id": "{a}", "endpoint_id": "{b.dead}"}, want: 404},
		{body: map[string]any{"all": true}, want: 403}, // across tenants: the platform's
	},
	// Creating names B, but a tenant token always creates its own.
	"POST /v1/endpoints": {{
		body: map[string]any{"url": "http://127.0.0.1:9/never", "event_types": []string{"iso.never"}, "tenant_id": "{b}"},
		want: 201,
		check: func(t *testing.T, f *isoFixture, out map[string]any) {
			require.Equal(t, f.a.id, out["tenant_id"], "the endpoint belongs to the token's tenant")
		},
	}},
}

// isoTenant is one tenant of the fixture and what it owns.
type isoTenant struct {
	id, token   string
	ok, dead    endpoint
	okRecv      *receiver
	eventID     string
	delivered   string // a delivered delivery's ID
	deadLetter  string // a dead-lettered delivery's ID
	job         string // a bulk redrive job of this tenant
	eventPrefix string
}

type isoFixture struct{ a, b *isoTenant }

// newIsoTenant makes a tenant with an endpoint that accepts and one that
// refuses (every delivery to it is dead-lettered at once), and one event
// that reaches both.
func newIsoTenant(t *testing.T, c *apiClient, id string) *isoTenant {
	tn := &isoTenant{id: id, eventPrefix: "iso" + strings.ReplaceAll(id, "-", "")}
	c.putTenant(id)
	tn.token = c.tenantToken(id, "1h")
	tn.okRecv = newReceiver(t, nil)
	refuse := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	for _, ep := range []struct {
		dst *endpoint
		url string
	}{{&tn.ok, tn.okRecv.URL}, {&tn.dead, refuse.URL}} {
		require.Equal(t, http.StatusCreated, c.do("POST", "/v1/endpoints", map[string]any{
			"url": ep.url, "event_types": []string{tn.eventPrefix + ".*"}, "tenant_id": id,
		}, ep.dst))
	}
	acc := c.send(fmt.Sprintf(`{"type":"%s.created","payload":{"tenant":%q},"tenant_id":%q}`, tn.eventPrefix, id, id))
	require.Len(t, acc.Deliveries, 2)
	tn.eventID = acc.EventID
	for _, d := range acc.Deliveries {
		if d.EndpointID == tn.ok.ID {
			tn.delivered = d.ID
		} else {
			tn.deadLetter = d.ID
		}
	}
	require.EqualValues(t, "delivered", c.waitDelivery(tn.delivered, 20*time.Second).Status)
	c.waitDeadLetter(tn.deadLetter)
	return tn
}

// startJob makes a real bulk redrive job of the tenant: a second dead
// letter, redriven by the platform with the tenant's filter.
func (tn *isoTenant) startJob(t *testing.T, c *apiClient) {
	jobType := tn.eventPrefix + ".job"
	acc := c.send(fmt.Sprintf(`{"type":%q,"payload":{},"tenant_id":%q}`, jobType, tn.id))
	for _, d := range acc.Deliveries {
		if d.EndpointID == tn.dead.ID {
			c.waitDeadLetter(d.ID)
		}
	}
	var out wire.RedriveStarted
	require.Eventually(t, func() bool { // visibility catches up
		out.Matched = 0
		status := c.do("POST", "/v1/dead-letters/redrive", map[string]any{"tenant_id": tn.id, "event_type": jobType}, &out)
		return status == http.StatusAccepted && out.Matched == 1
	}, 10*time.Second, 100*time.Millisecond)
	tn.job = out.JobID
	require.Eventually(t, func() bool {
		var job wire.RedriveJob
		return c.do("GET", "/v1/dead-letters/redrive/"+tn.job, nil, &job) == http.StatusOK && job.State == "completed"
	}, 20*time.Second, 100*time.Millisecond)
}

// fill replaces the placeholders of a query or body with the fixture's
// names.
func (f *isoFixture) fill(v any) any {
	switch v := v.(type) {
	case string:
		return strings.NewReplacer("{a}", f.a.id, "{b}", f.b.id, "{b.ok}", f.b.ok.ID, "{b.dead}", f.b.dead.ID, "{b.event}", f.b.eventID).Replace(v)
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = f.fill(x)
		}
		return out
	default:
		return v
	}
}

// path puts B's IDs into a route pattern: each {param} takes the ID of B's
// resource that the pattern up to it names.
func (f *isoFixture) path(t *testing.T, pattern string) string {
	ids := map[string]string{
		"/v1/tenants/{id}":               f.b.id,
		"/v1/endpoints/{id}":             f.b.ok.ID,
		"/v1/deliveries/{id}":            f.b.delivered,
		"/v1/dead-letters/{id}":          f.b.deadLetter,
		"/v1/dead-letters/redrive/{job}": f.b.job,
		"/v1/events/{id}":                f.b.eventID,
		"/v1/event-types/{name}":         f.b.eventPrefix + ".created",
	}
	segs := strings.Split(pattern, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") {
			id, ok := ids[strings.Join(segs[:i+1], "/")]
			require.True(t, ok, "route %s: the isolation test knows no ID of B's for %s; add one to isoFixture.path", pattern, seg)
			segs[i] = id
		}
	}
	return strings.Join(segs, "/")
}

// walkV1 lists every /v1 route of the running API, from its router.
func walkV1(t *testing.T) []string {
	var routes []string
	err := chi.Walk(shared.API.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/v1/") {
			routes = append(routes, method+" "+route)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, routes)
	slices.Sort(routes)
	return routes
}

// TestTenantIsolation: with tenant A's token, every route of the router,
// tried with tenant B's IDs, answers 404 (B's resources) or 403 (the
// platform's routes), and nothing of B's changes; an expired or revoked
// token answers 401 everywhere.
func TestTenantIsolation(t *testing.T) {
	c := newAPI(t)
	sfx := uniq()
	f := &isoFixture{a: newIsoTenant(t, c, "iso-a-"+sfx), b: newIsoTenant(t, c, "iso-b-"+sfx)}
	f.b.startJob(t, c)
	before := snapshotTenant(t, c, f.b)

	declared := map[string]authz.Access{}
	for _, rt := range shared.API.Routes() {
		declared[rt.Method+" "+rt.Pattern] = rt.Access
	}
	asA, asB := c.asTenant(f.a.token), c.asTenant(f.b.token)
	routes := walkV1(t)
	for _, route := range routes {
		access, ok := declared[route]
		require.True(t, ok, "route %s is served but not declared in the API's route table", route)
		cases, ok := isolationCases[route]
		require.True(t, ok, "route %s has no isolation case: add one to isolationCases", route)
		method, pattern, _ := strings.Cut(route, " ")
		for _, rq := range cases {
			if access == authz.PlatformOnly {
				require.Equal(t, http.StatusForbidden, rq.want, "%s is platform-only: a tenant token must get 403", route)
			}
			path := f.path(t, pattern) + f.fill(rq.query).(string)
			var out map[string]any
			require.Equal(t, rq.want, asA.do(method, path, f.fill(rq.body), &out), "A's token: %s %s", method, path)
			if rq.check != nil {
				rq.check(t, f, out)
			}
			if rq.own != 0 {
				require.Equal(t, rq.own, asB.do(method, path, f.fill(rq.body), nil), "B's token: %s %s", method, path)
			}
		}
	}
	for route := range isolationCases {
		require.Contains(t, routes, route, "isolationCases names a route the router does not serve")
	}
	require.Equal(t, before, snapshotTenant(t, c, f.b), "nothing of B's changed")
	requireNoRedriveSignal(t, f.b.deadLetter)
	requireSecretNotRotated(t, c, f.b)
	requireOwnListsOnly(t, asA, f.a)

	// /metrics is the platform's: on the API's listener, only its API key.
	for token, want := range map[string]int{f.a.token: http.StatusForbidden, shared.APIKey: http.StatusOK, "": http.StatusUnauthorized} {
		require.Equal(t, want, getMetrics(t, token), "/metrics with %q", token)
	}

	// An expired token, then a revoked one, gets 401 on every route.
	expiring := c.tenantToken(f.a.id, "1s")
	require.Equal(t, http.StatusOK, c.asTenant(expiring).do("GET", "/v1/endpoints", nil, nil))
	require.Eventually(t, func() bool {
		return c.asTenant(expiring).do("GET", "/v1/endpoints", nil, nil) == http.StatusUnauthorized
	}, 10*time.Second, 100*time.Millisecond)
	requireUnauthorizedEverywhere(t, c.asTenant(expiring), f, routes)

	var revoked wire.RevokedTokens
	require.Equal(t, http.StatusOK, c.do("DELETE", "/v1/tenants/"+f.a.id+"/tokens", nil, &revoked))
	require.GreaterOrEqual(t, revoked.Revoked, 1)
	requireUnauthorizedEverywhere(t, asA, f, routes)
	require.Equal(t, http.StatusOK, asB.do("GET", "/v1/endpoints", nil, nil), "another tenant's token still works")
}

// tenantSnapshot is what the platform sees of a tenant's resources. The
// endpoints, dead letter and delivery are kept as raw JSON objects on
// purpose: every field the server sends is compared, one the wire types
// lack included.
type tenantSnapshot struct {
	Endpoints   []map[string]any
	DeadLetter  map[string]any
	Delivery    map[string]any
	OkReceived  int
	EndpointIDs []string
}

func snapshotTenant(t *testing.T, c *apiClient, tn *isoTenant) tenantSnapshot {
	var s tenantSnapshot
	for _, id := range []string{tn.ok.ID, tn.dead.ID} {
		var ep map[string]any
		require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+id, nil, &ep))
		s.Endpoints = append(s.Endpoints, ep)
	}
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/dead-letters/"+tn.deadLetter, nil, &s.DeadLetter))
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/deliveries/"+tn.delivered, nil, &s.Delivery))
	s.OkReceived = len(tn.okRecv.Hits())
	var list wire.EndpointPage
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints?tenant_id="+tn.id, nil, &list))
	for _, ep := range list.Data {
		s.EndpointIDs = append(s.EndpointIDs, ep.ID)
	}
	return s
}

// requireNoRedriveSignal checks the dead letter's history: no redrive was
// ever signalled to it.
func requireNoRedriveSignal(t *testing.T, deliveryID string) {
	it := shared.Client.GetWorkflowHistory(context.Background(), delivery.DeadLetterID(deliveryID), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if sig := ev.GetWorkflowExecutionSignaledEventAttributes(); sig != nil {
			require.NotEqual(t, delivery.SignalRedrive, sig.GetSignalName(), "B's dead letter was redriven")
		}
	}
}

// requireSecretNotRotated sends B one more event and checks it is signed
// with B's first secret alone: a rotation would add a second signature.
func requireSecretNotRotated(t *testing.T, c *apiClient, tn *isoTenant) {
	n := len(tn.okRecv.Hits())
	acc := c.send(fmt.Sprintf(`{"type":"%s.after","payload":{},"tenant_id":%q}`, tn.eventPrefix, tn.id))
	for _, d := range acc.Deliveries {
		if d.EndpointID == tn.ok.ID {
			c.waitDelivery(d.ID, 20*time.Second)
		}
	}
	hits := tn.okRecv.Hits()
	require.Len(t, hits, n+1)
	last := hits[n]
	require.Len(t, strings.Fields(last.Header.Get("webhook-signature")), 1, "one secret signs: none was rotated in")
	verify(t, last, tn.ok.Secret)
}

// requireOwnListsOnly checks that A's unfiltered lists hold A's resources
// and nothing else.
func requireOwnListsOnly(t *testing.T, asA *apiClient, a *isoTenant) {
	var eps wire.EndpointPage
	require.Equal(t, http.StatusOK, asA.do("GET", "/v1/endpoints?limit=500", nil, &eps))
	require.GreaterOrEqual(t, len(eps.Data), 2)
	for _, ep := range eps.Data {
		require.Equal(t, a.id, ep.TenantID)
	}
	requireOwnRows(t, asA, "/v1/deliveries?limit=500", a.id, func(p wire.DeliveryPage) (ts []string) {
		for _, r := range p.Data {
			ts = append(ts, r.TenantID)
		}
		return ts
	})
	requireOwnRows(t, asA, "/v1/dead-letters?limit=500", a.id, func(p wire.DeadLetterPage) (ts []string) {
		for _, r := range p.Data {
			ts = append(ts, r.TenantID)
		}
		return ts
	})
	requireOwnRows(t, asA, "/v1/events?limit=500", a.id, func(p wire.EventPage) (ts []string) {
		for _, r := range p.Data {
			ts = append(ts, r.TenantID)
		}
		return ts
	})
	var summary wire.DeadLetterSummary
	require.Equal(t, http.StatusOK, asA.do("GET", "/v1/dead-letters/summary", nil, &summary))
	require.NotEmpty(t, summary.Groups)
	for _, g := range summary.Groups {
		require.Equal(t, a.dead.ID, g.EndpointID)
	}
}

// requireOwnRows polls the list at path until a page of P has rows, and
// checks that the tenant of each (what tenants reads from the page) is
// want.
func requireOwnRows[P any](t *testing.T, as *apiClient, path, want string, tenants func(P) []string) {
	var page P
	require.Eventually(t, func() bool {
		page = *new(P)
		return as.do("GET", path, nil, &page) == http.StatusOK && len(tenants(page)) > 0
	}, 10*time.Second, 100*time.Millisecond, path)
	for _, id := range tenants(page) {
		require.Equal(t, want, id, path)
	}
}

// requireUnauthorizedEverywhere tries every route but the public ones
// with an invalid token.
func requireUnauthorizedEverywhere(t *testing.T, as *apiClient, f *isoFixture, routes []string) {
	public := map[string]bool{}
	for _, rt := range shared.API.Routes() {
		public[rt.Method+" "+rt.Pattern] = rt.Access == authz.Public
	}
	for _, route := range routes {
		if public[route] {
			continue
		}
		method, pattern, _ := strings.Cut(route, " ")
		require.Equal(t, http.StatusUnauthorized, as.do(method, f.path(t, pattern), map[string]any{}, nil), route)
	}
}

func getMetrics(t *testing.T, token string) int {
	req, err := http.NewRequest("GET", shared.APIURL+"/metrics", nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
