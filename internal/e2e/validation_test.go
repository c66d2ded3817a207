package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// Bad input is refused with 400 naming the field at fault.
func TestValidationNamesTheField(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	ep := api.createEndpoint(map[string]any{"url": "http://127.0.0.1:1/v", "event_types": []string{"valid.never"}})
	seventeen := map[string]string{}
	for i := range 17 {
		seventeen[fmt.Sprint("k", i)] = "v"
	}
	const since, until = "2026-11-30T12:00:00Z", "2026-11-30T11:00:00Z"
	for _, c := range []struct {
		method, path string
		body         any
		field        string
	}{
		{"POST", "/v1/endpoints", map[string]any{"url": "http://example.com:0/x"}, "url"},
		{"POST", "/v1/endpoints", map[string]any{"url": "http://example.com:65536/x"}, "url"},
		{"PATCH", "/v1/endpoints/" + ep.ID, map[string]any{"url": "https://example.com:99999/"}, "url"},
		{"PATCH", "/v1/endpoints/" + ep.ID, map[string]any{"metadata": seventeen}, "metadata"},
		{"PATCH", "/v1/endpoints/" + ep.ID, map[string]any{"metadata": map[string]string{"big": strings.Repeat("v", 1025)}}, "metadata"},
		{"POST", "/v1/events", `{"type":"hookd.endpoint.unhealthy","payload":{"endpoint_id":"` + ep.ID + `"}}`, "type"},
		{"POST", "/v1/events", `{"type":"Hookd.Endpoint.Recovered","payload":{}}`, "type"},
		{"POST", "/v1/events", `{"type":"hookd.anything","payload":{}}`, "type"},
		{"GET", "/v1/dead-letters?since=" + since + "&until=" + until, nil, "since"},
		{"POST", "/v1/dead-letters/redrive", map[string]any{"since": since, "until": until}, "since"},
		{"GET", "/v1/dead-letters?reason=lost", nil, "reason"},
		{"POST", "/v1/dead-letters/redrive", map[string]any{"reasons": []string{"lost"}}, "reasons"},
		{"POST", "/v1/dead-letters/redrive", map[string]any{"rate": 0.09}, "rate"},
		{"POST", "/v1/dead-letters/redrive", map[string]any{"rate": 1001}, "rate"},
		{"POST", "/v1/dead-letters/redrive", map[string]any{"rate": 0}, "rate"},
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do(c.method, c.path, c.body, &e), "%s %s %v", c.method, c.path, c.body)
		require.Equal(t, c.field, e.Error.Field, "%s %s %v: %s", c.method, c.path, c.body, e.Error.Message)
	}
	// The limits themselves are accepted.
	sixteen := map[string]string{}
	for i := range 16 {
		sixteen[fmt.Sprint("k", i)] = strings.Repeat("v", 1024)
	}
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"url": "http://example.com:65535/", "metadata": sixteen}, nil))
	var res wire.EventBatchResults
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/batch", `{"events":[{"type":"hookd.endpoint.unhealthy","payload":{}}]}`, &res))
	require.Len(t, res.Results, 1)
	require.Equal(t, http.StatusBadRequest, res.Results[0].Status, "a batch refuses reserved types too")
	require.Equal(t, "type", res.Results[0].Error.Field)
}

// A cursor this API did not hand out is refused at once, on every list
// that takes one.
func TestMalformedCursorRefusedAtOnce(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	for _, list := range []string{"/v1/dead-letters", "/v1/deliveries", "/v1/endpoints", "/v1/events", "/v1/tenants"} {
		for _, cursor := range []string{"aGVsbG8gd29ybGQ", "bogus!", "AAAAAAAAAAAAAAAAAAAA"} {
			start := time.Now()
			var e apiError
			require.Equal(t, http.StatusBadRequest, api.do("GET", list+"?cursor="+cursor, nil, &e), list+" "+cursor)
			require.Equal(t, "cursor", e.Error.Field, list+" "+cursor)
			require.Less(t, time.Since(start), 2*time.Second, list+" "+cursor)
		}
	}
}

// A bulk redrive that matches nothing answers 200 with matched 0 and a job
// that can be read: completed, with nothing to do.
func TestBulkRedriveMatchingNothing(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	var job wire.RedriveStarted
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/dead-letters/redrive", map[string]any{"endpoint_id": "ep_nothing_here", "rate": 0.1}, &job))
	require.Zero(t, job.Matched)
	require.Equal(t, 0.1, job.Rate)
	var state wire.RedriveJob
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/dead-letters/redrive/"+job.JobID, nil, &state))
	require.Equal(t, job.JobID, state.JobID)
	require.EqualValues(t, "completed", state.State)
	require.Zero(t, state.Total)
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/dead-letters/redrive/redrive_unknown", nil, nil))

	// A tenant's empty job is the tenant's: another tenant cannot read it.
	a, b := "emptyjob-a."+uniq(), "emptyjob-b."+uniq()
	api.putTenant(a)
	api.putTenant(b)
	asA, asB := api.asTenant(api.tenantToken(a, "1h")), api.asTenant(api.tenantToken(b, "1h"))
	require.Equal(t, http.StatusOK, asA.do("POST", "/v1/dead-letters/redrive", map[string]any{"tenant_id": a}, &job))
	require.Zero(t, job.Matched)
	require.Equal(t, http.StatusOK, asA.do("GET", "/v1/dead-letters/redrive/"+job.JobID, nil, &state))
	require.EqualValues(t, "completed", state.State)
	require.Equal(t, http.StatusNotFound, asB.do("GET", "/v1/dead-letters/redrive/"+job.JobID, nil, nil))
}

// Every error answer carries the JSON error body: 405 (with Allow) and
// 404 outside /v1 too. The bearer scheme is case-insensitive.
func TestErrorAnswersAndAuthScheme(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		method, path, auth string
		status             int
		code, allow        string
	}{
		{"DELETE", "/v1/events", "Bearer ", http.StatusMethodNotAllowed, "method_not_allowed", "GET, POST"},
		{"PUT", "/v1/endpoints", "Bearer ", http.StatusMethodNotAllowed, "method_not_allowed", "GET, POST"},
		{"POST", "/healthz", "", http.StatusMethodNotAllowed, "method_not_allowed", "GET"},
		{"GET", "/nope", "", http.StatusNotFound, "not_found", ""},
		{"GET", "/v1/nope", "Bearer ", http.StatusNotFound, "not_found", ""},
		{"GET", "/v1/endpoints", "bearer ", http.StatusOK, "", ""},
		{"GET", "/v1/endpoints", "BEARER ", http.StatusOK, "", ""},
		{"GET", "/v1/endpoints", "Basic ", http.StatusUnauthorized, "unauthorized", ""},
		{"GET", "/v1/endpoints", "Bearer" + "\t", http.StatusUnauthorized, "unauthorized", ""},
	} {
		req, err := http.NewRequest(c.method, shared.APIURL+c.path, nil)
		require.NoError(t, err)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth+shared.APIKey)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := c.method + " " + c.path + " " + c.auth
		require.Equal(t, c.status, resp.StatusCode, name)
		assert.Equal(t, c.allow, resp.Header.Get("Allow"), name)
		if c.code == "" {
			continue
		}
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), name)
		var e apiError
		require.NoError(t, json.Unmarshal(raw, &e), "%s: %s", name, raw)
		assert.EqualValues(t, c.code, e.Error.Code, name)
		assert.NotEmpty(t, e.Error.Message, name)
	}
}
