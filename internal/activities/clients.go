package activities

import (
	"container/list"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// Egress is how attempts and token requests leave hookd: every
// destination passes Guard, and with a Proxy they leave through it (see
// proxyDialer).
type Egress struct {
	// Guard decides which destinations may be reached.
	Guard Guard
	// Proxy is the egress proxy (ParseEgressProxy); nil: none, every
	// destination is dialled directly.
	Proxy *url.URL
	// proxyRoots verify an https proxy (nil: the system's), for tests.
	proxyRoots *x509.CertPool
}

// ErrorClassTLSCertificate is the error class of an attempt whose
// endpoint's client certificate cannot be presented: expired, not yet
// valid, or unreadable.
const ErrorClassTLSCertificate = "tls_certificate"

// tlsCertError is an attempt refused before its request because of the
// endpoint's client certificate; its message names no value.
type tlsCertError struct{ msg string }

func (e *tlsCertError) Error() string      { return e.msg }
func (e *tlsCertError) errorClass() string { return ErrorClassTLSCertificate }

// maxEndpointClients bounds the clients kept for endpoints with TLS
// settings of their own.
const maxEndpointClients = 256

// endpointClients holds one HTTP client per endpoint with TLS settings
// (a client certificate, a CA), for the version of them it was built
// for: its connections present that certificate and trust that CA, and
// are never shared with another endpoint. A changed TLS replaces the
// endpoint's client; past maxEndpointClients the least recently used is
// dropped. A dropped client's idle connections are closed.
type endpointClients struct {
	egress Egress
	max    int

	mu    sync.Mutex
	lru   *list.List               // of *endpointClient, most recent first
	byID  map[string]*list.Element // by endpoint ID
	built int                      // clients built, for tests
}

type endpointClient struct {
	endpointID, version string
	client              *http.Client
	parsed              *store.ParsedTLS
}

func newEndpointClients(e Egress, max int) *endpointClients {
	return &endpointClients{egress: e, max: max, lru: list.New(), byID: map[string]*list.Element{}}
}

// get returns the client for the endpoint's TLS and the parsed TLS. Its
// error is a tlsCertError.
func (c *endpointClients) get(endpointID string, t *store.TLS) (*http.Client, *store.ParsedTLS, error) {
	version := tlsVersion(t)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[endpointID]; ok {
		ec := el.Value.(*endpointClient)
		if ec.version == version {
			c.lru.MoveToFront(el)
			return ec.client, ec.parsed, nil
		}
		c.drop(el)
	}
	p, err := t.Parse()
	if err != nil {
		return nil, nil, &tlsCertError{"the endpoint's TLS settings do not parse; set them again"}
	}
	ct := clientTLS{roots: p.Roots, cert: p.Certificate}
	ec := &endpointClient{endpointID: endpointID, version: version, client: c.egress.client(ct), parsed: p}
	c.built++
	c.byID[endpointID] = c.lru.PushFront(ec)
	for c.lru.Len() > c.max {
		c.drop(c.lru.Back())
	}
	return ec.client, p, nil
}

func (c *endpointClients) drop(el *list.Element) {
	ec := c.lru.Remove(el).(*endpointClient)
	delete(c.byID, ec.endpointID)
	ec.client.CloseIdleConnections()
}

// tlsVersion names a TLS's contents without holding them.
func tlsVersion(t *store.TLS) string {
	sum := sha256.Sum256([]byte(t.ClientCertificate + "\x00" + t.ClientKey + "\x00" + t.CA))
	return hex.EncodeToString(sum[:16])
}

// clientFor returns the client an attempt to ep is sent with: the
// endpoint's own when it has TLS settings (refused while its client
// certificate is expired or not yet valid), else the shared one.
func (a *Activities) clientFor(ep *store.Endpoint, now time.Time) (*http.Client, error) {
	if ep.Credentials == nil || ep.Credentials.TLS == nil {
		return a.http, nil
	}
	client, p, err := a.clients.get(ep.ID, ep.Credentials.TLS)
	if err != nil {
		return nil, err
	}
	if expired, at := p.Expired(now); expired {
		if now.Before(at) {
			return nil, &tlsCertError{"the client certificate is not valid before " + at.UTC().Format(time.RFC3339)}
		}
		return nil, &tlsCertError{"the client certificate expired at " + at.UTC().Format(time.RFC3339)}
	}
	return client, nil
}
