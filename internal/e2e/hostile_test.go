package e2e

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Hostile requests always get a 4xx, never a 5xx or a panic, and leave no
// state behind.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"hostile.*"}})
	nested := `{"type":"hostile.nested","payload":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat(`}`, 20000) + `}`
	cases := map[string]struct {
		body   string
		status int
	}{
		"oversized payload": {`{"type":"hostile.big","payload":{"x":"` + strings.Repeat("x", 300<<10) + `"}}`, http.StatusRequestEntityTooLarge},
		"invalid UTF-8":     {"{\"type\":\"hostile.utf8\",\"payload\":{\"s\":\"\xff\xfe\"}}", http.StatusBadRequest},
		"deeply nested":     {nested, http.StatusBadRequest},
		"empty body":        {``, http.StatusBadRequest},
		"null":              {`null`, http.StatusBadRequest},
		"array":             {`[]`, http.StatusBadRequest},
	}
	for name, c := range cases {
		var e apiError
		require.Equal(t, c.status, api.do("POST", "/v1/events", c.body, &e), name)
		require.NotEmpty(t, e.Error.Code, name)
	}
	sentinel := api.barrier("hostile.barrier")
	require.Equal(t, []string{sentinel}, eventIDs(rc.Hits()), "nothing refused was delivered")
}

// Headers beyond the server's limit are refused with 431.
func TestHugeHeaders(t *testing.T) {
	t.Parallel()
	req, err := http.NewRequest("POST", shared.APIURL+"/v1/events", strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+shared.APIKey)
	req.Header.Set("X-Junk", strings.Repeat("j", 128<<10))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
}

// A client that never finishes its headers is cut off by the server's
// header timeout instead of holding a connection forever.
func TestSlowClientIsCutOff(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for the 10s header timeout")
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(shared.APIURL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("POST /v1/events HTTP/1.1\r\nHost: x\r\nX-Slow: "))
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	r := bufio.NewReader(conn)
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(r) // returns when the server closes the connection
	took := time.Since(start)
	require.Less(t, took, 20*time.Second, "server kept a slow client for %s", took)
	require.GreaterOrEqual(t, took, 9*time.Second)
}
