package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// TestBulkRedriveNeedsAFilterOrAll: an empty bulk redrive body is a 400
// naming "all", not a redrive of every dead letter; "all": true (or a
// filter) is the explicit way.
func TestBulkRedriveNeedsAFilterOrAll(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	tenant := "redrive-all." + uniq()
	api.putTenant(tenant)
	asTenant := api.asTenant(api.tenantToken(tenant, "1h"))

	var e apiError
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/dead-letters/redrive", `{}`, &e))
	require.Equal(t, "all", e.Error.Field)
	require.Equal(t, http.StatusBadRequest, asTenant.do("POST", "/v1/dead-letters/redrive", `{"reason":"why"}`, &e))
	require.Equal(t, "all", e.Error.Field)

	// With its tenant named, a tenant's bulk redrive of its whole scope
	// needs no "all".
	var job wire.RedriveStarted
	require.Equal(t, http.StatusOK, asTenant.do("POST", "/v1/dead-letters/redrive", `{"tenant_id":"`+tenant+`"}`, &job))
	require.Zero(t, job.Matched)
}
