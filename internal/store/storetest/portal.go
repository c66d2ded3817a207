package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// portalCases are the suite's cases about the consumer portal's sign-in
// links and sessions.
var portalCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"PortalLinkSingleUse", testPortalLinkSingleUse},
	{"PortalLinkExpiry", testPortalLinkExpiry},
	{"PortalLinkConcurrentUse", testPortalLinkConcurrentUse},
	{"PortalSessionEnds", testPortalSessionEnds},
	{"PortalLinkOptions", testPortalLinkOptions},
	{"EndPortalSessions", testEndPortalSessions},
}

// grant is a portal grant of tenant created at at(created), valid for ttl.
func grant(hash, tenant string, created, ttl time.Duration) store.PortalGrant {
	return store.PortalGrant{Hash: hash, TenantID: tenant, CreatedAt: at(created), ExpiresAt: at(created + ttl)}
}

// signIn adds a link for tenant and exchanges it for a session with hash
// session, both created at at(created).
func signIn(t *testing.T, s store.Store, tenant, session string, created time.Duration) {
	t.Helper()
	ctx := context.Background()
	link := "link_" + session
	require.NoError(t, s.AddPortalLink(ctx, grant(link, tenant, created, 10*time.Minute)))
	got, err := s.ExchangePortalLink(ctx, link, grant(session, "", created, 24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, tenant, got.TenantID)
}

func testPortalLinkSingleUse(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	require.NoError(t, s.AddPortalLink(ctx, grant("link_1", "a", 0, 10*time.Minute)))

	got, err := s.ExchangePortalLink(ctx, "link_1", grant("sess_1", "ignored", time.Minute, 24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, grant("sess_1", "a", time.Minute, 24*time.Hour), got)
	sess, err := s.PortalSession(ctx, "sess_1", at(time.Minute))
	require.NoError(t, err)
	require.Equal(t, grant("sess_1", "a", time.Minute, 24*time.Hour), sess, "the session belongs to the link's tenant, times to the nanosecond")

	_, err = s.ExchangePortalLink(ctx, "link_1", grant("sess_2", "", 2*time.Minute, 24*time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "a link works once")
	_, err = s.PortalSession(ctx, "sess_2", at(2*time.Minute))
	require.ErrorIs(t, err, store.ErrNotFound, "a refused exchange stores no session")
	_, err = s.ExchangePortalLink(ctx, "unknown", grant("sess_3", "", 0, time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.AddPortalLink(ctx, grant("link_x", "nobody", 0, time.Minute)), store.ErrNotFound)
	_, err = s.PortalSession(ctx, "link_1", t0)
	require.ErrorIs(t, err, store.ErrNotFound, "a link is not a session")
}

func testPortalLinkExpiry(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	require.NoError(t, s.AddPortalLink(ctx, grant("link_1", "a", 0, 10*time.Minute)))
	_, err := s.ExchangePortalLink(ctx, "link_1", grant("sess_1", "", 10*time.Minute, time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "a link is void from its expiry on")

	signIn(t, s, "a", "sess_2", 0)
	_, err = s.PortalSession(ctx, "sess_2", at(24*time.Hour-time.Nanosecond))
	require.NoError(t, err)
	_, err = s.PortalSession(ctx, "sess_2", at(24*time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "a session is void from its expiry on")
}

// Of many browsers opening one link at once, exactly one gets a session.
func testPortalLinkConcurrentUse(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	require.NoError(t, s.AddPortalLink(ctx, grant("link_1", "a", 0, 10*time.Minute)))
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := s.ExchangePortalLink(ctx, "link_1", grant(fmt.Sprintf("sess_%d", i), "", time.Second, time.Hour))
			if err == nil {
				wins.Add(1)
				return
			}
			assert.ErrorIs(t, err, store.ErrNotFound)
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, wins.Load())
}

// Logging out, revoking the tenant's tokens and deleting the tenant each
// end its sessions; another tenant's stay.
func testPortalSessionEnds(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, tn := range []string{"a", "b", "c"} {
		putTenant(t, s, newTenant(tn, 0))
	}
	signIn(t, s, "a", "sess_a1", 0)
	signIn(t, s, "a", "sess_a2", 0)
	signIn(t, s, "b", "sess_b", 0)
	signIn(t, s, "c", "sess_c", 0)
	require.NoError(t, s.AddPortalLink(ctx, grant("link_a", "a", 0, 10*time.Minute)))
	now := at(time.Minute)

	require.NoError(t, s.DeletePortalSession(ctx, "sess_a1"))
	_, err := s.PortalSession(ctx, "sess_a1", now)
	require.ErrorIs(t, err, store.ErrNotFound, "logged out")
	require.NoError(t, s.DeletePortalSession(ctx, "sess_a1"), "ending an ended session is not an error")

	_, err = s.RevokeTenantTokens(ctx, "a", at(time.Second))
	require.NoError(t, err)
	_, err = s.PortalSession(ctx, "sess_a2", now)
	require.ErrorIs(t, err, store.ErrNotFound, "revoking the tenant's tokens ends its sessions")
	_, err = s.ExchangePortalLink(ctx, "link_a", grant("sess_a3", "", 2*time.Second, time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "and voids its links")
	signIn(t, s, "a", "sess_a4", 2*time.Second)
	_, err = s.PortalSession(ctx, "sess_a4", now)
	require.NoError(t, err, "a link issued after the revocation works")

	require.NoError(t, s.DeleteTenant(ctx, "b"))
	_, err = s.PortalSession(ctx, "sess_b", now)
	require.ErrorIs(t, err, store.ErrNotFound, "deleting the tenant ends its sessions")

	sess, err := s.PortalSession(ctx, "sess_c", now)
	require.NoError(t, err, "another tenant's session stays")
	require.Equal(t, "c", sess.TenantID)
}

// A link's session lifetime and denied capabilities pass to the session
// it opens.
func testPortalLinkOptions(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	link := grant("link_1", "a", 0, 10*time.Minute)
	link.SessionTTL, link.Denied = 2*time.Hour, []string{"manage_endpoints", "reveal_secret"}
	require.NoError(t, s.AddPortalLink(ctx, link))
	got, err := s.ExchangePortalLink(ctx, "link_1", grant("sess_1", "", time.Minute, 24*time.Hour))
	require.NoError(t, err)
	want := grant("sess_1", "a", time.Minute, 2*time.Hour)
	want.Denied = []string{"manage_endpoints", "reveal_secret"}
	require.Equal(t, want, got, "the link's lifetime replaces the session's default")
	sess, err := s.PortalSession(ctx, "sess_1", at(time.Minute))
	require.NoError(t, err)
	require.Equal(t, want, sess)
	_, err = s.PortalSession(ctx, "sess_1", at(time.Minute+2*time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "void from the link's lifetime on")
}

// Ending a tenant's portal sessions ends every one of them and voids its
// unused links; another tenant's stay.
func testEndPortalSessions(t *testing.T, s store.Store) {
	ctx := context.Background()
	putTenant(t, s, newTenant("a", 0))
	putTenant(t, s, newTenant("b", 0))
	signIn(t, s, "a", "sess_a1", 0)
	signIn(t, s, "a", "sess_a2", 0)
	signIn(t, s, "b", "sess_b", 0)
	require.NoError(t, s.AddPortalLink(ctx, grant("link_a", "a", 0, 10*time.Minute)))
	now := at(time.Minute)

	n, err := s.EndPortalSessions(ctx, "a")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	for _, h := range []string{"sess_a1", "sess_a2"} {
		_, err = s.PortalSession(ctx, h, now)
		require.ErrorIs(t, err, store.ErrNotFound, h)
	}
	_, err = s.ExchangePortalLink(ctx, "link_a", grant("sess_a3", "", time.Second, time.Hour))
	require.ErrorIs(t, err, store.ErrNotFound, "an unused link is void too")
	_, err = s.PortalSession(ctx, "sess_b", now)
	require.NoError(t, err, "another tenant's session stays")
	_, err = s.EndPortalSessions(ctx, "nobody")
	require.ErrorIs(t, err, store.ErrNotFound)
	signIn(t, s, "a", "sess_a4", 2*time.Second)
}
