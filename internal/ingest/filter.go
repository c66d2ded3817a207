package ingest

import (
	"log/slog"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/contentfilter"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/store"
)

// applyFilters keeps the endpoints of eps whose content filter accepts ev
// (those without one always do), in order. The payload is parsed once for
// all of them, and not at all when none has a filter. A filter that fails
// (a missing key, a type mismatch, the cost limit) does not match: it is
// counted, logged through fails (at most once a second) without the
// payload, and changes nothing for the other endpoints.
func applyFilters(ev Event, eps []*store.Endpoint, m *metrics.Metrics, fails *rateLog, log *slog.Logger) []*store.Endpoint {
	var (
		in     contentfilter.Event
		parsed bool
		perr   error
		out    = eps[:0:0]
	)
	for _, ep := range eps {
		if ep.Filter == "" {
			out = append(out, ep)
			continue
		}
		if !parsed {
			parsed = true
			in = contentfilter.Event{ID: ev.ID, Type: ev.Type, TenantID: ev.TenantID}
			in.Payload, perr = contentfilter.ParsePayload(ev.Body)
		}
		matched, reason := matchOne(ep, in, perr)
		if reason != "" {
			m.FilterError(reason)
			fails.log(log, ev.ID, ep.ID, reason)
		}
		if matched {
			out = append(out, ep)
		}
	}
	return out
}

// matchOne evaluates ep's filter, compiling it when the matcher did not
// (store.Endpoint.FilterProgram).
func matchOne(ep *store.Endpoint, ev contentfilter.Event, payloadErr error) (bool, string) {
	if payloadErr != nil {
		return false, contentfilter.ReasonPayload
	}
	prg := ep.FilterProgram
	if prg == nil || prg.Expression() != ep.Filter {
		var err error
		if prg, err = contentfilter.Compile(ep.Filter); err != nil {
			return false, contentfilter.ReasonInvalid
		}
	}
	return prg.Match(ev)
}

// rateLog limits the log lines of failed filters to one a second per
// publisher; the next line says how many were left out.
type rateLog struct {
	mu      sync.Mutex
	next    time.Time
	skipped int
}

// log writes one line naming the event, the endpoint and the reason,
// never the payload nor CEL's message (which may quote a value).
func (r *rateLog) log(log *slog.Logger, eventID, endpointID, reason string) {
	if log == nil {
		return
	}
	r.mu.Lock()
	now := time.Now()
	if now.Before(r.next) {
		r.skipped++
		r.mu.Unlock()
		return
	}
	skipped := r.skipped
	r.next, r.skipped = now.Add(time.Second), 0
	r.mu.Unlock()
	log.Warn("content filter failed; the endpoint does not receive the event",
		"event_id", eventID, "endpoint_id", endpointID, "reason", reason, "not_logged_since", skipped)
}
