package activities

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/testkit"
)

// mtlsReceiver is a testkit.MutualTLS answering 204 that records the
// client certificates' subjects it saw.
type mtlsReceiver struct {
	*testkit.MutualTLS
	mu       sync.Mutex
	subjects []string
}

func newMTLSReceiver(t *testing.T) *mtlsReceiver {
	rc := &mtlsReceiver{}
	rc.MutualTLS = testkit.NewMutualTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.subjects = append(rc.subjects, r.TLS.PeerCertificates[0].Subject.CommonName)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	return rc
}

func (rc *mtlsReceiver) seen() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.subjects...)
}

// An endpoint's client certificate and CA are what its attempts present
// and trust; without them the receiver, or hookd, refuses the handshake,
// and an expired certificate is refused before any request.
func TestAttemptMutualTLS(t *testing.T) {
	rc := newMTLSReceiver(t)
	client := rc.ClientCA.IssueNow(t, "hookd-client")
	expired := rc.ClientCA.Issue(t, "hookd-expired", time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	stranger := testkit.NewCA(t, "Stranger CA").IssueNow(t, "stranger")
	withTLS := func(id string, tl *store.TLS) store.Endpoint {
		return store.Endpoint{ID: id, URL: rc.URL, Enabled: true, Credentials: &store.Credentials{TLS: tl}}
	}
	eps := newFakeEndpoints(t,
		withTLS("ep_mtls", &store.TLS{ClientCertificate: client.CertPEM, ClientKey: client.KeyPEM, CA: rc.ServerCA.PEM}),
		withTLS("ep_ca_only", &store.TLS{CA: rc.ServerCA.PEM}),
		withTLS("ep_no_ca", &store.TLS{ClientCertificate: client.CertPEM, ClientKey: client.KeyPEM}),
		withTLS("ep_expired", &store.TLS{ClientCertificate: expired.CertPEM, ClientKey: expired.KeyPEM, CA: rc.ServerCA.PEM}),
		withTLS("ep_stranger", &store.TLS{ClientCertificate: stranger.CertPEM, ClientKey: stranger.KeyPEM, CA: rc.ServerCA.PEM}),
	)
	a := newTestActivities(eps, nil, nil)

	for range 3 {
		at := attemptOnce(t, a, "ep_mtls")
		require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
	}
	assert.Equal(t, []string{"hookd-client", "hookd-client", "hookd-client"}, rc.seen())
	assert.Equal(t, 1, a.clients.built, "one client for the endpoint's TLS")

	for id, want := range map[string]struct{ class, msg string }{
		"ep_ca_only":  {"tls", `TLS handshake failed: the receiver sent the alert "certificate required"`},
		"ep_stranger": {"tls", `TLS handshake failed: the receiver sent the alert "unknown certificate authority"`},
		"ep_no_ca":    {"tls", "TLS handshake failed: the receiver's certificate is signed by an authority hookd does not trust"},
		"ep_expired":  {ErrorClassTLSCertificate, "the client certificate expired at "},
	} {
		at := attemptOnce(t, a, id)
		assert.Equal(t, delivery.OutcomeRetryable, at.Outcome, id)
		assert.Equal(t, want.class, at.ErrorClass, "%s: %s", id, at.Error)
		assert.Contains(t, at.Error, want.msg, id)
	}
	assert.Len(t, rc.seen(), 3, "no request without an accepted certificate")
}

// Clients are kept per endpoint and TLS version: a changed TLS replaces
// the endpoint's, and past the bound the least recently used goes.
func TestEndpointClientsBounded(t *testing.T) {
	ca := testkit.NewCA(t, "CA")
	c := newEndpointClients(Egress{}, 2)
	one, other := &store.TLS{CA: ca.PEM}, &store.TLS{CA: ca.PEM + "\n"}
	first, _, err := c.get("ep_1", one)
	require.NoError(t, err)
	again, _, err := c.get("ep_1", one)
	require.NoError(t, err)
	assert.Same(t, first, again)
	changed, _, err := c.get("ep_1", other)
	require.NoError(t, err)
	assert.NotSame(t, first, changed, "a changed TLS is another client")
	assert.Equal(t, 1, c.lru.Len(), "and replaces the old one")
	for _, id := range []string{"ep_2", "ep_3"} {
		_, _, err := c.get(id, one)
		require.NoError(t, err)
	}
	assert.Equal(t, 2, c.lru.Len())
	_, stillThere := c.byID["ep_1"]
	assert.False(t, stillThere, "the least recently used went")

	_, _, err = c.get("ep_bad", &store.TLS{CA: "garbage"})
	var ce *tlsCertError
	require.ErrorAs(t, err, &ce)
}
