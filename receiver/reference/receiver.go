package reference

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hookd/hookd/receiver"
	"github.com/hookd/hookd/signing"
)

// Receiver is a running reference receiver: an http.Handler serving
// deliveries on POST (any path) and counts on GET /stats.
type Receiver struct {
	db      *sql.DB
	inbox   *receiver.Inbox
	log     *slog.Logger
	faults  faultState
	counts  counters
	handler http.Handler
}

// New opens the database and returns a Receiver for cfg. Close it when done.
func New(cfg Config) (*Receiver, error) {
	if len(cfg.Secrets) == 0 {
		return nil, fmt.Errorf("reference receiver: %w", receiver.ErrNoSecrets)
	}
	if err := cfg.Faults.validate(); err != nil {
		return nil, fmt.Errorf("reference receiver: %w", err)
	}
	v, err := receiver.NewVerifier(cfg.Secrets)
	if cfg.Signing != (signing.Profile{}) {
		v, err = receiver.NewProfileVerifier(cfg.Signing, cfg.Secrets)
	}
	if err != nil {
		return nil, fmt.Errorf("reference receiver: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	db, err := openDB(context.Background(), cfg.DBPath)
	if err != nil {
		return nil, fmt.Errorf("reference receiver: %w", err)
	}
	inbox, err := receiver.NewInbox(db, receiver.SQLite)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("reference receiver: %w", err)
	}
	inbox.Logger = log
	r := &Receiver{db: db, inbox: inbox, log: log}
	r.faults.set(cfg.Faults)
	verified := receiver.Middleware(v, receiver.MiddlewareOptions{MaxBodyBytes: cfg.MaxBodyBytes, Logger: log})
	mux := http.NewServeMux()
	mux.Handle("POST /", r.withFaults(verified(http.HandlerFunc(r.accept))))
	mux.HandleFunc("GET /stats", r.serveStats)
	r.handler = mux
	return r, nil
}

// ServeHTTP serves deliveries and GET /stats.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.handler.ServeHTTP(w, req)
}

// SetFaults replaces the fault settings, e.g. to repair a failing receiver
// in a test, and restarts the FailFirst and DropAfterCommit counts.
func (r *Receiver) SetFaults(f Faults) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("set faults: %w", err)
	}
	r.faults.set(f)
	return nil
}

// Faults returns the current fault settings.
func (r *Receiver) Faults() Faults {
	return r.faults.get()
}

// Close closes the database.
func (r *Receiver) Close() error {
	return r.db.Close()
}

// withFaults counts the request and injects the delay and the failures
// configured, before anything is verified or recorded.
func (r *Receiver) withFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.counts.requests.Add(1)
		f := r.faults.get()
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-req.Context().Done():
				return
			}
		}
		if status := r.faults.failure(); status != 0 {
			r.counts.injected.Add(1)
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			http.Error(w, "injected failure", status)
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, req)
		if rec.status == http.StatusUnauthorized || rec.status == http.StatusRequestEntityTooLarge {
			r.counts.rejected.Add(1)
		}
	})
}

// accept records a verified delivery with its effect, then answers, or
// drops the connection if a DropAfterCommit fault says so.
func (r *Receiver) accept(w http.ResponseWriter, req *http.Request) {
	d, _ := receiver.FromContext(req.Context())
	o, err := r.inbox.Accept(req.Context(), d, writeEffect)
	r.counts.record(o, err)
	// Only a new commit's answer is lost: that is the lost-ACK case, and a
	// duplicate's answer then gets through.
	if err == nil && o == receiver.Accepted && r.faults.drop() {
		r.counts.dropped.Add(1)
		r.log.InfoContext(req.Context(), "dropping connection after commit (injected)", "webhook_id", d.ID, "outcome", o.String())
		dropConnection(w)
		return
	}
	r.inbox.Respond(w, req, d, o, err)
}

// dropConnection closes the client connection without an answer.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 or a recorder: abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// statusRecorder remembers the status a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection to hijack it.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
