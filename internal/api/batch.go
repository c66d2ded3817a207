package api

import (
	"encoding/json"
	"net/http"

	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/internal/ingest"
)

// MaxBatch is the most events one batch request may carry.
const MaxBatch = 100

// batchConcurrency bounds the events of one batch being recorded at once;
// their delivery starts share the publisher's bound on top of it.
const batchConcurrency = 8

// batchResult is one event's outcome within a batch.
type batchResult struct {
	Status int    `json:"status"`
	Error  *Error `json:"error,omitempty"`
	*ingest.Result
}

// postEventBatch accepts up to MaxBatch events; each is validated and
// ingested on its own and gets its own status, as if posted alone.
func (s *Server) postEventBatch(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, MaxBatch*(s.maxPayload+16<<10))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		Events []json.RawMessage `json:"events"`
	}
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
	results := make([]batchResult, len(in.Events))
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
	writeJSON(w, http.StatusOK, map[string]any{"results": results})
}

func (s *Server) ingestOne(r *http.Request, b *ingest.Batch, raw json.RawMessage) batchResult {
	var in eventIn
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
		return batchResult{Status: http.StatusAccepted, Result: &out}
	}
	e := s.apiError(r, err)
	return batchResult{Status: statusOf[e.Code], Error: e}
}
