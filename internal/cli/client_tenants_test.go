package cli

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const tenantJSON = `{"id":"acme","name":"Acme","metadata":{"plan":"pro"},"created_at":"2026-11-30T10:00:00Z","updated_at":"2026-11-30T10:00:00Z"}`

func TestTenantsPutSaysCreatedOrUpdated(t *testing.T) {
	f := newFakeAPI(t)
	f.onSeq("PUT /v1/tenants/{id}", 201, tenantJSON)
	out, _, err := cli("tenants", "put", "acme", "--name", "Acme", "--metadata", "plan=pro")
	require.NoError(t, err)
	require.Contains(t, out, "Created tenant acme.")
	require.Contains(t, out, "plan=pro")
	req := f.only(t)
	require.Equal(t, "/v1/tenants/acme", req.Path)
	require.JSONEq(t, `{"name":"Acme","metadata":{"plan":"pro"}}`, req.Body)

	f = newFakeAPI(t)
	f.on("PUT /v1/tenants/{id}", 200, tenantJSON)
	out, _, err = cli("tenants", "put", "acme", "--name", "Acme")
	require.NoError(t, err)
	require.Contains(t, out, "Updated tenant acme.")
}

func TestTenantsTokenIssuesAndRevokes(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/tenants/{id}/tokens", 201, `{"token":"htk_secret","tenant_id":"acme","expires_at":"2026-12-01T10:00:00Z"}`)
	out, _, err := cli("tenants", "token", "acme", "--expires-in", "2h")
	require.NoError(t, err)
	require.Contains(t, out, "htk_secret")
	require.JSONEq(t, `{"expires_in":"2h0m0s"}`, f.only(t).Body)

	f = newFakeAPI(t)
	f.on("DELETE /v1/tenants/{id}/tokens", 200, `{"tenant_id":"acme","revoked":3}`)
	out, _, err = cli("tenants", "token", "acme", "--revoke")
	require.NoError(t, err)
	require.Contains(t, out, "Revoked 3 tokens of tenant acme.")
	require.Equal(t, "DELETE", f.only(t).Method)

	_, _, err = cli("tenants", "token", "acme", "--revoke", "--expires-in", "1h")
	require.ErrorContains(t, err, "exclude each other")
}

func TestTenantsListGetDelete(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/tenants", 200, `{"data":[`+tenantJSON+`]}`)
	f.on("GET /v1/tenants/{id}", 200, tenantJSON)
	f.on("DELETE /v1/tenants/{id}", 204, ``)
	out, _, err := cli("tenants", "list")
	require.NoError(t, err)
	require.Contains(t, out, "acme")
	out, _, err = cli("tenants", "get", "acme")
	require.NoError(t, err)
	require.Contains(t, out, "Acme")
	out, _, err = cli("tenants", "delete", "acme")
	require.NoError(t, err)
	require.Contains(t, out, "Deleted tenant acme")
}

// --tenant reaches the API as tenant_id on every command that takes it.
func TestTenantFlag(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+`,"tenant_id":"acme","secret":"whsec_x"}`)
	f.on("GET /v1/endpoints", 200, `{"data":[]}`)
	f.on("POST /v1/events", 202, `{"event_id":"e","deliveries":[]}`)
	f.on("GET /v1/dead-letters", 200, `{"data":[]}`)
	f.on("GET /v1/dead-letters/summary", 200, `{"total":0,"groups":[]}`)
	f.on("GET /v1/events", 200, `{"data":[]}`)
	f.on("GET /v1/deliveries", 200, `{"data":[{"id":"dlv_1","event_type":"a.b","endpoint_id":"ep_1","tenant_id":"acme","status":"delivered","created_at":"2026-11-30T10:00:00Z"}]}`)
	for _, args := range [][]string{
		{"endpoints", "create", "--url", "https://example.com", "--tenant", "acme"},
		{"endpoints", "list", "--tenant", "acme"},
		{"send", "--type", "a.b", "--payload", "{}", "--tenant", "acme"},
		{"dlq", "list", "--tenant", "acme"},
		{"dlq", "summary", "--tenant", "acme"},
		{"deliveries", "list", "--tenant", "acme", "--status", "delivered"},
		{"events", "list", "--tenant", "acme"},
	} {
		_, _, err := cli(args...)
		require.NoError(t, err, args)
	}
	reqs := f.requests()
	require.Len(t, reqs, 7)
	require.JSONEq(t, `{"url":"https://example.com","tenant_id":"acme"}`, reqs[0].Body)
	require.Equal(t, "tenant_id=acme", reqs[1].Query)
	require.JSONEq(t, `{"type":"a.b","payload":{},"tenant_id":"acme"}`, reqs[2].Body)
	require.Equal(t, "tenant_id=acme", reqs[3].Query)
	require.Equal(t, "tenant_id=acme", reqs[4].Query)
	require.Equal(t, "status=delivered&tenant_id=acme", reqs[5].Query)
	require.Equal(t, "tenant_id=acme", reqs[6].Query)
}

func TestTenantsPortalLinkOptionsAndEnd(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/tenants/{id}/portal", 201, `{"url":"https://hooks.example.com/portal/login?t=hpl_x","tenant_id":"acme",
		"expires_at":"2026-12-01T10:00:00Z","session_ttl":"8h0m0s","capabilities":{"manage_endpoints":false,"reveal_secret":false,"redrive":true}}`)
	out, _, err := cli("tenants", "portal-link", "acme", "--session-ttl", "8h", "--read-only", "--without", "reveal_secret")
	require.NoError(t, err)
	require.Contains(t, out, "hpl_x")
	require.Contains(t, out, "manage_endpoints, reveal_secret")
	require.JSONEq(t, `{"session_ttl":"8h0m0s","read_only":true,"capabilities":{"reveal_secret":false}}`, f.only(t).Body)

	f = newFakeAPI(t)
	f.on("DELETE /v1/tenants/{id}/portal-sessions", 200, `{"tenant_id":"acme","ended":2}`)
	out, _, err = cli("tenants", "portal-link", "acme", "--end-sessions")
	require.NoError(t, err)
	require.Contains(t, out, "Ended 2 portal sessions of tenant acme.")

	_, _, err = cli("tenants", "portal-link", "acme", "--end-sessions", "--read-only")
	require.ErrorContains(t, err, "takes no link options")
}
