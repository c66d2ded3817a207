package receiver

import (
	"log/slog"
	"net/http"
)

// StatusQuarantined is the status answered for a quarantined delivery: 409
// Conflict. hookd sends the same bytes on every attempt of one delivery ID,
// so a different body under a known ID is never a retry; answering 2xx would
// hide the conflict from the sender, while a 4xx makes hookd stop retrying
// and park the delivery in its dead-letter queue, where an operator sees it.
// The conflicting body is kept in the quarantine table either way.
const StatusQuarantined = http.StatusConflict

// outcomeBody is the JSON of a successful answer: {"status": "accepted"}.
type outcomeBody struct {
	Status string `json:"status"`
}

// writeOutcome answers the result of Inbox.Accept: 200 {"status":"accepted"}
// or {"status":"duplicate"}, StatusQuarantined {"error":"quarantined"}, or
// 500 {"error":"internal"} when err is not nil (the sender will retry).
func writeOutcome(w http.ResponseWriter, o Outcome, err error) {
	switch {
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "internal"})
	case o == Quarantined:
		writeJSON(w, StatusQuarantined, errorBody{Error: "quarantined"})
	default:
		writeJSON(w, http.StatusOK, outcomeBody{Status: o.String()})
	}
}

// Handler returns the endpoint handler for deliveries: it takes the verified
// delivery from the context (mount it behind Middleware), runs Accept with
// work and answers with Respond, so 2xx is sent only after the commit.
func (in *Inbox) Handler(work WorkFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := FromContext(r.Context())
		if !ok {
			in.logger().ErrorContext(r.Context(), "webhook handler", "err", ErrNoDelivery)
			writeOutcome(w, 0, ErrNoDelivery)
			return
		}
		o, err := in.Accept(r.Context(), d, work)
		in.Respond(w, r, d, o, err)
	})
}

// Respond logs and answers the result of Accept for d: 200
// {"status":"accepted"} or {"status":"duplicate"}, StatusQuarantined
// {"error":"quarantined"}, or 500 {"error":"internal"} when err is not nil
// (the sender will retry). Use it in handlers that call Accept themselves.
func (in *Inbox) Respond(w http.ResponseWriter, r *http.Request, d *Delivery, o Outcome, err error) {
	log := in.logger()
	switch {
	case err != nil:
		log.ErrorContext(r.Context(), "webhook not recorded", "webhook_id", d.ID, "err", err)
	case o == Quarantined:
		log.WarnContext(r.Context(), "webhook quarantined", "webhook_id", d.ID, "digest", d.Digest)
	default:
		log.DebugContext(r.Context(), "webhook recorded", "webhook_id", d.ID, "outcome", o.String())
	}
	writeOutcome(w, o, err)
}

func (in *Inbox) logger() *slog.Logger {
	if in.Logger != nil {
		return in.Logger
	}
	return slog.Default()
}
