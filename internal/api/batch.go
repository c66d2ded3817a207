package api

import (
	"encoding/json"
	"net/http"

	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/ingest"
)

// MaxBatch is the most events one batch request may carry.
const MaxBatch = 100

// batchConcurrency bounds the events of one batch being recorded at once;
// their delivery starts share the publisher's bound on top of it.
const batchConcurrency = 8

// postEventBatch accepts up to MaxBatch events; each is validated and
// ingested on its own and gets its own status, as if posted alone.
func (s *Server) postEventBatch(w http.ResponseWriter, r *http.Request) {
	r = arrived(r)
	body, err := readBody(w, r, MaxBatch*(s.maxPayload+16<<10))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in wire.EventBatch
	if err := decodeStrict(body, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	switch {
	case len(in.Events) == 0:
		s.writeError(w, r, invalid("events", "must list at least one event"))
		return
	case len(in.Events) > MaxBatch:
		s.writeError(w, r, invalid("events", "must list at most %d events", MaxBatch))
		return
	}
	results := make([]wire.EventBatchResult, len(in.Events))
	b := s.publisher.Batch()
	var g errgroup.Group
	g.SetLimit(batchConcurrency)
	for i, raw := range in.Events {
		g.Go(func() error {
			results[i] = s.ingestOne(r, b, raw)
			return nil
		})
	}
	_ = g.Wait() // each event's outcome is in results
	writeJSON(w, http.StatusOK, wire.EventBatchResults{Results: results})
}

// ingestOne is one event's outcome within a batch: 202 with the accepted
// event's fields, or the error's status and the error.
func (s *Server) ingestOne(r *http.Request, b *ingest.Batch, raw json.RawMessage) wire.EventBatchResult {
	var in wire.EventCreate
	err := decodeStrict(raw, &in)
	var ev ingest.Event
	if err == nil {
		ev, err = s.validateEvent(in, "")
	}
	var out ingest.Result
	if err == nil {
		out, err = s.ingest(r.Context(), b, ev)
	}
	if err == nil {
		a := acceptedOut(out)
		return wire.EventBatchResult{Status: http.StatusAccepted, EventID: a.EventID, Deliveries: &a.Deliveries, Duplicate: &a.Duplicate}
	}
	e := s.apiError(r, err)
	return wire.EventBatchResult{Status: statusOf[e.Code], Error: e.detail()}
}
