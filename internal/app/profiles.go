package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// maxProfileWrite bounds how long one answer of the profile server may
// take to write: a CPU profile or execution trace runs for its
// ?seconds= before its first byte (pprof refuses a duration past the
// server's write timeout).
const maxProfileWrite = 5 * time.Minute

// ServeProfiles serves Go's runtime profiles of this process under
// /debug/pprof/ on addr (CPU, heap, allocations, goroutines, mutex and
// block contention, execution trace) until ctx is done, for an operator
// who wants to see where a process's CPU or memory goes. It asks for no
// credentials, so addr belongs on loopback or a private network. The
// command line is not served: flags can carry secrets. An empty addr
// serves nothing and returns "". It returns the server's URL once it
// listens; a port in use fails here.
func ServeProfiles(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	ln, u, err := listen(addr)
	if err != nil || ln == nil {
		return "", err
	}
	srv := newHTTPServer(profileHandler())
	srv.WriteTimeout = maxProfileWrite
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("profile server stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	log.Info("serving runtime profiles", "url", u+"/debug/pprof/")
	return u, nil
}

// profileHandler routes /debug/pprof/: the index and every named profile
// (pprof.Index), a CPU profile, an execution trace and symbol lookups.
func profileHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", http.NotFound)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	return mux
}
