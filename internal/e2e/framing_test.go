package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rawServer answers HTTP/1.1 on a raw TCP listener with the bytes answer
// gives for the request's path, keeping connections alive: it can send
// what net/http never would, such as a 304 with a body.
func rawServer(t *testing.T, answer map[string]string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
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
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// A receiver that answers one endpoint's deliveries with a 304 and a body
// does not poison the deliveries to another endpoint on the same host:
// each of those is delivered by its first attempt, and the receiver's
// bytes never reach the log as an "unsolicited response". Not parallel: it
// watches the standard logger, where net/http reports those.
func TestStrayBodyDoesNotPoisonTheSameHost(t *testing.T) {
	var logged syncBuffer
	prev := log.Writer()
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(prev) })
	api := newAPI(t)
	url := rawServer(t, map[string]string{
		"/bad": "HTTP/1.1 304 Not Modified\r\nContent-Length: 11\r\n\r\nstray bytes",
		"/ok":  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	})
	api.createEndpoint(map[string]any{"url": url + "/bad", "event_types": []string{"stray.bad"}, "retry_schedule": []string{"1h"}})
	api.createEndpoint(map[string]any{"url": url + "/ok", "event_types": []string{"stray.ok"}})
	for i := range 5 {
		bad := api.send(fmt.Sprintf(`{"type":"stray.bad","payload":{"i":%d}}`, i)).Deliveries[0].ID
		var d deliveryState
		require.Eventually(t, func() bool {
			return api.do("GET", "/v1/deliveries/"+bad, nil, &d) == http.StatusOK && d.Attempts == 1
		}, 10*time.Second, 10*time.Millisecond)
		require.Equal(t, 304, d.LastStatus)
		ok := api.waitDelivery(api.send(fmt.Sprintf(`{"type":"stray.ok","payload":{"i":%d}}`, i)).Deliveries[0].ID, 10*time.Second)
		require.EqualValues(t, "delivered", ok.Status, "after a 304 with a body: %+v", ok.Timeline)
		require.Equal(t, 1, ok.Attempts)
	}
	require.NotContains(t, logged.String(), "stray bytes")
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
