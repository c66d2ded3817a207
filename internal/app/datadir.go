package app

import (
	"net/http"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/embedded"
)

// guardedFiles are the files of a dev data dir whose loss loses state:
// the SQLite databases and the keys.
var guardedFiles = []string{"temporal.db", "temporal-visibility.db", "hookd.db", "master.key", PayloadKeysFile, "api-key"}

// withDataDirGuard serves GET /readyz beside next (200 while the data dir
// is the one hookd dev started with, else 503 saying why) and refuses
// ingest with 503 once it is gone: Temporal and the store would go on
// writing to deleted files, so an event accepted then is lost at the next
// start.
func withDataDirGuard(next http.Handler, g *embedded.DataDirGuard) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := g.Err(); err != nil {
			writeProbe(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": map[string]string{"data_dir": err.Error()}})
			return
		}
		writeProbe(w, http.StatusOK, map[string]any{"status": "ok", "checks": map[string]string{"data_dir": "ok"}})
	})
	refuse := func(w http.ResponseWriter, r *http.Request) {
		if err := g.Err(); err != nil {
			writeProbe(w, http.StatusServiceUnavailable, (&api.Error{Code: api.CodeUnavailable,
				Message: "not accepting events: " + err.Error() + "; events accepted now would be lost"}).Body())
			return
		}
		next.ServeHTTP(w, r)
	}
	mux.HandleFunc("POST /v1/events", refuse)
	mux.HandleFunc("POST /v1/events/batch", refuse)
	mux.Handle("/", next)
	return mux
}
