package activities

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawReceiver is a loopback HTTP/1.1 server written on a raw TCP listener,
// so it can answer what net/http never would: a 304 or 204 with a body.
// answer maps a request path to the bytes sent back.
// With cert set it speaks TLS (HTTP/1.1 only).
func rawReceiver(t *testing.T, cert *tls.Certificate, answer map[string]string) (url string, conns *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url = "http://" + ln.Addr().String()
	if cert != nil {
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{*cert}, NextProtos: []string{"http/1.1"}})
		url = "https://" + ln.Addr().String()
	}
	conns = &atomic.Int64{}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		open []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			mu.Lock()
			open = append(open, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if _, err := conn.Write([]byte(answer[req.URL.Path])); err != nil {
						return
					}
				}
			})
		}
	})
	return url, conns
}

// A receiver that answers 304 (or 204) with a body anyway must not poison
// the next attempt to the same host: that connection is not reused, the
// next attempt gets its own answer, and Go logs no "unsolicited response"
// with the receiver's bytes. Connections after clean answers are reused.
func TestStrayBodyDoesNotPoisonTheNextAttempt(t *testing.T) {
	t.Run("http", func(t *testing.T) { testStrayBody(t, nil, nil) })
	t.Run("https", func(t *testing.T) {
		srv := httptest.NewTLSServer(http.NotFoundHandler()) // for its certificate
		srv.Close()
		testStrayBody(t, &srv.TLS.Certificates[0], srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs)
	})
}

func testStrayBody(t *testing.T, cert *tls.Certificate, roots *x509.CertPool) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	url, conns := rawReceiver(t, cert, map[string]string{
		"/304":   "HTTP/1.1 304 Not Modified\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nstray bytes",
		"/204":   "HTTP/1.1 204 No Content\r\nContent-Length: 11\r\n\r\nstray bytes",
		"/clean": "HTTP/1.1 204 No Content\r\n\r\n",
		"/early": "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 304 Not Modified\r\n\r\nstray bytes",
		"/ok":    ok,
	})
	var logged bytes.Buffer
	prev := log.Writer()
	log.SetOutput(&logged) // where net/http reports unsolicited responses
	t.Cleanup(func() { log.SetOutput(prev) })
	client := newHTTPClient(Guard{AllowLoopback: true}, roots)
	post := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Post(url+path, "application/json", strings.NewReader(`{"n":1}`))
		require.NoError(t, err, path)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err, path)
		return resp.StatusCode, string(body)
	}

	for range 20 {
		for _, path := range []string{"/304", "/204", "/early"} {
			code, _ := post(path)
			require.Equal(t, http.StatusNotModified-(map[string]int{"/204": 100}[path]), code, path)
			code, body := post("/ok")
			require.Equal(t, http.StatusOK, code, "after %s", path)
			require.Equal(t, "ok", body, "after %s", path)
		}
	}
	assert.NotContains(t, logged.String(), "stray", "no receiver bytes in the log")
	assert.EqualValues(t, 1+3*20, conns.Load(), "one connection per doubtful answer, plus the first")

	// Clean bodiless answers keep their connection.
	before := conns.Load()
	for range 10 {
		code, _ := post("/clean")
		require.Equal(t, http.StatusNoContent, code)
		code, _ = post("/ok")
		require.Equal(t, http.StatusOK, code)
	}
	assert.Equal(t, before, conns.Load(), "clean answers reuse the connection")
}

// HTTP/2 over TLS is handed to the transport as it is.
func TestHTTP2StillNegotiated(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	client := newHTTPClient(Guard{AllowLoopback: true}, srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs)
	for range 3 {
		resp, err := client.Post(srv.URL, "application/json", strings.NewReader("{}"))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 2, resp.ProtoMajor)
		assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	}
}
