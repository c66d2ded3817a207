package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hookd/hookd/internal/embedded"
)

// httpServers are a process's HTTP servers (API, probes, metrics) with one
// lifecycle: listen first, so a taken port fails before anything starts;
// serve in the background; Wait reports the first server that fails; stop
// finishes the requests in flight.
type httpServers struct {
	servers []*http.Server
	failed  chan error
}

// newHTTPServer is every hookd HTTP server's settings: bounded header,
// read, write and idle times and header size, so a slow or hostile client
// cannot hold a connection or memory.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// listen listens on addr and returns the listener and its URL; an empty
// addr listens on nothing. The error keeps its cause (address in use,
// permission denied, no such host).
func listen(addr string) (net.Listener, string, error) {
	if addr == "" {
		return nil, "", nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", embedded.ListenError(addr, err)
	}
	return ln, "http://" + ln.Addr().String(), nil
}

// closeListeners closes listeners not handed to serve (a start that
// failed); nil ones are skipped.
func closeListeners(lns ...net.Listener) {
	for _, ln := range lns {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// serve serves h on ln in the background; a nil ln serves nothing. A
// server closed by stop is not a failure.
func (g *httpServers) serve(ln net.Listener, h http.Handler) {
	if ln == nil {
		return
	}
	if g.failed == nil {
		g.failed = make(chan error, 4)
	}
	srv := newHTTPServer(h)
	g.servers = append(g.servers, srv)
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			select {
			case g.failed <- fmt.Errorf("http server on %s: %w", ln.Addr(), err):
			default: // another failure is already waiting to be reported
			}
		}
	}()
}

// wait blocks until ctx is done (nil) or a server fails (its error).
func (g *httpServers) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-g.failed:
		return err
	}
}

// stop stops accepting and finishes the requests in flight, until ctx is
// done; it returns the errors of the servers that could not finish.
func (g *httpServers) stop(ctx context.Context) error {
	var errs []error
	for _, srv := range g.servers {
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
