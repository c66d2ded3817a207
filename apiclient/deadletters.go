package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// DeadLetterRef is a dead letter as a list shows it. ID is the delivery
// ID; LastStatus and LastError say how the last attempt ended: the HTTP
// status (0: no response) and the error.
type DeadLetterRef = wire.DeadLetterRow

// DeadLetter is one dead letter in full, with its timeline and payload;
// PayloadExpunged says Payload is null because the event was expunged.
type DeadLetter struct {
	Raw
	wire.DeadLetter
}

// DeadLetterPage is one page of dead letters.
type DeadLetterPage struct {
	Raw
	wire.DeadLetterPage
}

// DeadLetterFilter selects dead letters; zero fields match everything.
type DeadLetterFilter struct {
	TenantID   string
	EndpointID string
	EventType  string
	Reasons    []string // failed, exhausted
	Since      time.Time
	Until      time.Time
}

// IsZero reports whether the filter matches every dead letter.
func (f DeadLetterFilter) IsZero() bool {
	return f.TenantID == "" && f.EndpointID == "" && f.EventType == "" && len(f.Reasons) == 0 && f.Since.IsZero() && f.Until.IsZero()
}

// values adds the filter to a list's query: the document's
// ListDeadLettersParams.
func (f DeadLetterFilter) values(v url.Values) url.Values {
	for k, s := range map[string]string{
		"tenant_id": f.TenantID, "endpoint_id": f.EndpointID, "event_type": f.EventType,
		"since": rfc3339(f.Since, time.RFC3339), "until": rfc3339(f.Until, time.RFC3339), "reason": strings.Join(f.Reasons, ","),
	} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// rfc3339 is t in UTC in layout (RFC 3339, to the second or the
// nanosecond); "" for the zero time.
func rfc3339(t time.Time, layout string) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(layout)
}

// DeadLetterSummary counts waiting dead letters per endpoint and reason;
// Truncated says the groups leave out some endpoints' dead letters (Total
// counts them all).
type DeadLetterSummary struct {
	Raw
	wire.DeadLetterSummary
}

// SummaryGroup is the count of one endpoint's dead letters for one reason.
type SummaryGroup = wire.SummaryGroup

// RedriveRequested is the answer to a single redrive. HeldBy is
// "circuit_open" when the redriven delivery will wait until HeldUntil,
// unless the endpoint is recovered.
type RedriveRequested struct {
	Raw
	wire.RedriveRequested
}

// BulkRedrive asks to redrive every dead letter the filter matches, at
// Rate per second (zero: the API's default), recording Reason.
type BulkRedrive struct {
	Filter DeadLetterFilter
	Rate   float64
	Reason string
	// All redrives every dead letter in scope: the API refuses a bulk
	// redrive with neither a filter nor All.
	All bool
}

// body is the bulk redrive's body: the document's BulkRedriveRequest.
func (b BulkRedrive) body() wire.BulkRedriveRequest {
	f := b.Filter
	out := wire.BulkRedriveRequest{
		TenantID: wire.Optional(f.TenantID), EndpointID: wire.Optional(f.EndpointID), EventType: wire.Optional(f.EventType),
		Rate: wire.Optional(b.Rate), Reason: wire.Optional(b.Reason),
	}
	if b.All {
		out.All = &b.All
	}
	if len(f.Reasons) > 0 {
		reasons := make([]wire.DeadLetterReason, len(f.Reasons))
		for i, r := range f.Reasons {
			reasons[i] = wire.DeadLetterReason(r)
		}
		out.Reasons = &reasons
	}
	out.Since, out.Until = rfc3339(f.Since, time.RFC3339Nano), rfc3339(f.Until, time.RFC3339Nano)
	return out
}

// RedriveStarted is the answer to a bulk redrive: the job and how many
// dead letters it matched. No job runs when Matched is zero.
type RedriveStarted struct {
	Raw
	wire.RedriveStarted
}

// RedriveJob is a bulk redrive's progress. State is running, completed or
// failed; Skipped counts dead letters that closed (redriven or expired)
// between the job's listing and its redrive.
type RedriveJob struct {
	Raw
	wire.RedriveJob
}

func deadLetterPath(id string) string { return "/v1/dead-letters/" + url.PathEscape(id) }

// ListDeadLetters returns one page of the dead letters f matches.
func (c *Client) ListDeadLetters(ctx context.Context, f DeadLetterFilter, p Page) (*DeadLetterPage, error) {
	return call[DeadLetterPage](ctx, c, http.MethodGet, "/v1/dead-letters", f.values(p.values()), nil)
}

// GetDeadLetter returns one dead letter with its timeline and payload.
func (c *Client) GetDeadLetter(ctx context.Context, id string) (*DeadLetter, error) {
	return call[DeadLetter](ctx, c, http.MethodGet, deadLetterPath(id), nil, nil)
}

// DeadLetterSummary counts the waiting dead letters.
func (c *Client) DeadLetterSummary(ctx context.Context) (*DeadLetterSummary, error) {
	return call[DeadLetterSummary](ctx, c, http.MethodGet, "/v1/dead-letters/summary", nil, nil)
}

// RedriveDeadLetter redrives one dead letter: a fresh delivery run with
// the same delivery ID.
func (c *Client) RedriveDeadLetter(ctx context.Context, id, reason string) (*RedriveRequested, error) {
	return call[RedriveRequested](ctx, c, http.MethodPost, deadLetterPath(id)+"/redrive", nil, wire.RedriveRequest{Reason: &reason})
}

// StartRedrive starts a bulk redrive job inside Temporal.
func (c *Client) StartRedrive(ctx context.Context, b BulkRedrive) (*RedriveStarted, error) {
	return call[RedriveStarted](ctx, c, http.MethodPost, "/v1/dead-letters/redrive", nil, b.body())
}

// RedriveJob returns a bulk redrive's progress.
func (c *Client) RedriveJob(ctx context.Context, job string) (*RedriveJob, error) {
	return call[RedriveJob](ctx, c, http.MethodGet, "/v1/dead-letters/redrive/"+url.PathEscape(job), nil, nil)
}
