package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/api"
)

func takenAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String()
}

// A listen error keeps its cause and names the address.
func TestListenKeepsCause(t *testing.T) {
	addr := takenAddr(t)
	_, _, err := listen(addr)
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	assert.Contains(t, err.Error(), addr)

	_, _, err = listen("127.0.0.1:notaport")
	require.Error(t, err)
	assert.NotErrorIs(t, err, syscall.EADDRINUSE, "not every listen error is a port in use")
}

// hookd dev takes its API port before anything else: a taken port fails
// with its cause and leaves nothing behind.
func TestStartDevPortTaken(t *testing.T) {
	addr := takenAddr(t)
	dir := filepath.Join(t.TempDir(), "data")
	_, err := StartDev(context.Background(), DevConfig{DataDir: dir, HTTPAddr: addr, TemporalAddr: "127.0.0.1:1"})
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	_, statErr := os.Stat(dir)
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "data dir created: %v", statErr)
}

// A server that stops serving on its own is reported by wait, with its
// address.
func TestHTTPServersReportFailure(t *testing.T) {
	var g httpServers
	ln, url, err := listen("127.0.0.1:0")
	require.NoError(t, err)
	g.serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)

	require.NoError(t, ln.Close()) // the listener fails under the server
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = g.wait(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), ln.Addr().String())
}

// The endpoint test route's bound leaves room inside the write timeout
// for the answer to be written.
func TestEndpointTestFitsTheWriteTimeout(t *testing.T) {
	require.LessOrEqual(t, api.MaxTestWait+15*time.Second, newHTTPServer(nil).WriteTimeout)
}
