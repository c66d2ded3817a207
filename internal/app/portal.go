package app

import (
	"log/slog"
	"net/http"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/portal"
	"github.com/hookd/hookd/internal/store"
)

// withPortal serves the consumer portal under /portal/ beside next (the
// API), on the API's service methods and the store's portal sessions. It
// returns the portal too, for tests that walk its routes.
func withPortal(next http.Handler, apiServer *api.Server, st store.Store, version string, frameAncestors []string, log *slog.Logger) (http.Handler, *portal.Portal, error) {
	p, err := portal.New(portal.Config{API: apiServer, Sessions: st, Version: version, FrameAncestors: frameAncestors, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(portal.Prefix+"/", p)
	mux.Handle("/", next)
	return mux, p, nil
}
