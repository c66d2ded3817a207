package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/delivery"
)

// outcomeBroken makes the fake FirstAttempt or WakeAttempt fail as an activity (as a
// panic or a worker timeout would) instead of reporting an outcome.
const outcomeBroken delivery.Outcome = "broken"

// fakeActivities stands in for activities.Activities, registered under the
// same names with the same signatures. Its receiver is scripted: outcome
// says how attempt n of a request ends and delay which NextDelay it picks.
// With temporal set (against a real server) DeadLetter and StartRedrive do
// what the real ones do: signal-with-start the dead letter, start a run.
type fakeActivities struct {
	now      func() time.Time
	outcome  func(req delivery.Request, n int) delivery.Outcome
	delay    func(req delivery.Request, n int) time.Duration // nil: req.Schedule[n-1]
	temporal client.Client
	// retention picks the DeadLetterParams.Retention DeadLetter starts
	// with; nil leaves the workflow's default.
	retention func(delivery.DeadLetter) time.Duration
	// closed says whether gate check n (1-based, counted per delivery
	// across attempts and admission checks) finds the endpoint closed:
	// the attempt is deferred by deferFor. nil: always open.
	closed   func(req delivery.Request, n int) bool
	deferFor time.Duration

	mu sync.Mutex
	// openUntil holds attempts back as an open circuit does: before it,
	// an attempt sends nothing and is deferred to it.
	openUntil   time.Time
	deferrals   []time.Time
	calls       []call
	checks      map[string]int // gate checks per delivery ID
	deadLetters []delivery.DeadLetter
	redrives    []delivery.Request
	recoveries  []delivery.Recovered

	// wakePage and takes script the wake-up's activities; pages and
	// looks record their calls.
	wakePage func(delivery.WakePageInput) (delivery.WakePageResult, error)
	takes    func() bool
	pages    []wakePageCall
	looks    []time.Time

	// rateEvery, when set, is a rate limit of one attempt each
	// rateEvery (burst 1) from rateTAT on: an attempt without a held
	// slot reserves one, and one ahead defers it with the slot.
	rateEvery time.Duration
	rateTAT   time.Time
	reserved  int // slots reserved
}

// wakePageCall is one WakePage call.
type wakePageCall struct {
	in delivery.WakePageInput
	at time.Time
}

// call is one invocation of an attempt activity.
type call struct {
	activity string
	number   int
	at       time.Time
	deferred bool           // no request was sent
	held     *delivery.Slot // the slot the attempt came with
}

// registry is where fakes register: a test environment or a worker.
type registry interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

func (f *fakeActivities) register(r registry) {
	r.RegisterActivityWithOptions(f.FirstAttempt, activity.RegisterOptions{Name: delivery.ActivityFirstAttempt})
	r.RegisterActivityWithOptions(f.Retry, activity.RegisterOptions{Name: delivery.ActivityRetry})
	r.RegisterActivityWithOptions(f.DeadLetter, activity.RegisterOptions{Name: delivery.ActivityDeadLetter})
	r.RegisterActivityWithOptions(f.StartRedrive, activity.RegisterOptions{Name: delivery.ActivityRedrive})
	r.RegisterActivityWithOptions(f.Admit, activity.RegisterOptions{Name: delivery.ActivityAdmit})
	r.RegisterActivityWithOptions(f.WakeAttempt, activity.RegisterOptions{Name: delivery.ActivityWakeAttempt})
	r.RegisterActivityWithOptions(f.WakePage, activity.RegisterOptions{Name: delivery.ActivityWakePage})
	r.RegisterActivityWithOptions(f.TakesAttempts, activity.RegisterOptions{Name: delivery.ActivityTakesAttempts})
	r.RegisterActivityWithOptions(f.DeliveryRecovered, activity.RegisterOptions{Name: delivery.ActivityRecovered})
	r.RegisterActivityWithOptions(f.ExpungePage, activity.RegisterOptions{Name: delivery.ActivityExpungePage})
}

// ExpungePage answers three pages of a tenant's events: 100, 100 and 20
// expunged, the first page's first one already.
func (f *fakeActivities) ExpungePage(_ context.Context, in delivery.ExpungePageInput) (delivery.ExpungePageResult, error) {
	switch in.Cursor {
	case "":
		return delivery.ExpungePageResult{ExpungeProgress: delivery.ExpungeProgress{Expunged: 99, Already: 1}, Next: "page-2"}, nil
	case "page-2":
		return delivery.ExpungePageResult{ExpungeProgress: delivery.ExpungeProgress{Expunged: 100}, Next: "page-3"}, nil
	}
	return delivery.ExpungePageResult{ExpungeProgress: delivery.ExpungeProgress{Expunged: 20}}, nil
}

// DeliveryRecovered records the announcement of a delivery delivered
// after failing.
func (f *fakeActivities) DeliveryRecovered(_ context.Context, in delivery.Recovered) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recoveries = append(f.recoveries, in)
	return nil
}

// recovered returns the announcements recorded.
func (f *fakeActivities) recovered() []delivery.Recovered {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]delivery.Recovered(nil), f.recoveries...)
}

// WakePage answers a wake-up's page as wakePage says, recording its
// input; nil: nothing waits.
func (f *fakeActivities) WakePage(_ context.Context, in delivery.WakePageInput) (delivery.WakePageResult, error) {
	f.mu.Lock()
	f.pages = append(f.pages, wakePageCall{in: in, at: f.now()})
	f.mu.Unlock()
	if f.wakePage == nil {
		return delivery.WakePageResult{}, nil
	}
	return f.wakePage(in)
}

// TakesAttempts answers as takes says (nil: it does), recording when it
// was asked.
func (f *fakeActivities) TakesAttempts(_ context.Context, endpointID string) (bool, error) {
	record(&f.mu, &f.looks, f.now())
	if f.takes == nil {
		return true, nil
	}
	return f.takes(), nil
}

// outcomes scripts attempts 1..len(o); later attempts are retryable.
func outcomes(o ...delivery.Outcome) func(delivery.Request, int) delivery.Outcome {
	return func(_ delivery.Request, n int) delivery.Outcome {
		if n <= len(o) {
			return o[n-1]
		}
		return delivery.OutcomeRetryable
	}
}

// setOpenUntil opens the fake circuit until t; the zero time closes it.
func (f *fakeActivities) setOpenUntil(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.openUntil = t
}

// gate counts a gate check of req and reports whether it is deferred,
// until when and why: by the fake circuit, open until openUntil (the
// deferral recorded), or by closed.
func (f *fakeActivities) gate(req delivery.Request) (time.Time, string, bool) {
	start := f.now()
	f.mu.Lock()
	if f.checks == nil {
		f.checks = map[string]int{}
	}
	f.checks[req.DeliveryID]++
	n := f.checks[req.DeliveryID]
	if start.Before(f.openUntil) {
		f.deferrals = append(f.deferrals, start)
		defer f.mu.Unlock()
		return f.openUntil, "circuit open", true
	}
	f.mu.Unlock()
	if f.closed == nil || !f.closed(req, n) {
		return time.Time{}, "", false
	}
	return f.now().Add(f.deferFor), "endpoint disabled", true
}

// reserve is the fake rate limit: the slot an attempt without a held
// one reserves at now, if rateEvery is set and it is ahead.
func (f *fakeActivities) reserve(now time.Time, held *delivery.Slot) *delivery.Slot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rateEvery == 0 || held != nil {
		return nil
	}
	f.reserved++
	slot := f.rateTAT
	if slot.Before(now) {
		slot = now
	}
	f.rateTAT = slot.Add(f.rateEvery)
	if !slot.After(now) {
		return nil
	}
	return &delivery.Slot{At: slot, Since: t0}
}

// attempt makes attempt n the way activities.attempt reports it; held
// is the rate limit's slot it comes with.
func (f *fakeActivities) attempt(name string, req delivery.Request, n int, held *delivery.Slot) delivery.Attempt {
	start := f.now()
	if until, why, deferred := f.gate(req); deferred {
		record(&f.mu, &f.calls, call{activity: name, at: start, deferred: true, held: held})
		return delivery.Attempt{Start: start, Outcome: delivery.OutcomeDeferred, NextAttempt: until, DelayReason: why}
	}
	if slot := f.reserve(start, held); slot != nil {
		record(&f.mu, &f.calls, call{activity: name, at: start, deferred: true, held: held})
		return delivery.Attempt{Start: start, Outcome: delivery.OutcomeDeferred, NextAttempt: slot.At, DelayReason: delivery.WaitRateLimit, Slot: slot}
	}
	record(&f.mu, &f.calls, call{activity: name, number: n, at: start, held: held})

	at := delivery.Attempt{Number: n, Start: start, Outcome: f.outcome(req, n)}
	switch at.Outcome {
	case delivery.OutcomeExpunged:
		at.Error = "event expunged"
		return at
	case delivery.OutcomeSuccess:
		at.Status = 200
	case delivery.OutcomePermanent:
		at.Status, at.ErrorClass = 404, "http_4xx"
	default:
		at.Status, at.ErrorClass = 503, "http_5xx"
	}
	if at.Outcome == delivery.OutcomeRetryable && n < req.Attempts() {
		at.NextDelay, at.DelayReason = req.Schedule[n-1], "schedule"
		if f.delay != nil {
			at.NextDelay = f.delay(req, n)
		}
		at.NextAttempt = start.Add(at.NextDelay)
	}
	return at
}

// FirstAttempt mimics activities.FirstAttempt: it comes with the slot
// ingest reserved, if any.
func (f *fakeActivities) FirstAttempt(_ context.Context, req delivery.Request) (delivery.Attempt, error) {
	at := f.attempt(delivery.ActivityFirstAttempt, req, 1, req.Slot)
	if at.Outcome == outcomeBroken {
		return delivery.Attempt{}, errors.New("attempt broke")
	}
	return at, nil
}

// WakeAttempt mimics activities.WakeAttempt: attempt len(in.Prior)+1.
func (f *fakeActivities) WakeAttempt(_ context.Context, in delivery.RetryInput) (delivery.Attempt, error) {
	at := f.attempt(delivery.ActivityWakeAttempt, in.Request, len(in.Prior)+1, in.Slot)
	if at.Outcome == outcomeBroken {
		return delivery.Attempt{}, errors.New("attempt broke")
	}
	return at, nil
}

// Retry runs the real Retry activity's protocol (activities.RunRetry)
// around the fake attempt.
func (f *fakeActivities) Retry(ctx context.Context, in delivery.RetryInput) (delivery.Result, error) {
	return activities.RunRetry(ctx, in, func(n int) delivery.Attempt { return f.attempt(delivery.ActivityRetry, in.Request, n, nil) })
}

// Admit mimics activities.Admit: one gate check, nothing sent.
func (f *fakeActivities) Admit(_ context.Context, in delivery.AdmitInput) (delivery.Admission, error) {
	start := f.now()
	until, why, deferred := f.gate(delivery.Request{DeliveryID: in.DeliveryID, EndpointID: in.EndpointID})
	record(&f.mu, &f.calls, call{activity: delivery.ActivityAdmit, at: start, deferred: deferred})
	if !deferred {
		return delivery.Admission{}, nil
	}
	return delivery.Admission{WaitUntil: until, WaitReason: why}, nil
}

// DeadLetter records the entry and, against a real server, signals-with-
// start the dead-letter workflow as activities.DeadLetter does.
func (f *fakeActivities) DeadLetter(ctx context.Context, dl delivery.DeadLetter) error {
	record(&f.mu, &f.deadLetters, dl)
	if f.temporal == nil {
		return nil
	}
	opts := client.StartWorkflowOptions{
		ID:                    delivery.DeadLetterID(dl.Request.DeliveryID),
		TaskQueue:             delivery.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			delivery.AttrDeliveryID.ValueSet(dl.Request.DeliveryID),
			delivery.AttrReason.ValueSet(string(dl.Reason)),
		),
	}
	req := dl.Request
	params := delivery.DeadLetterParams{DeliveryID: req.DeliveryID, EndpointID: req.EndpointID, EventID: req.EventID, EventType: req.EventType, Reason: dl.Reason}
	if f.retention != nil {
		params.Retention = f.retention(dl)
	}
	_, err := f.temporal.SignalWithStartWorkflow(ctx, opts.ID, delivery.SignalDeadLetter, dl, opts, delivery.WorkflowDeadLetter, params)
	return err
}

// StartRedrive records the request and, against a real server, starts the
// delivery's fresh run as activities.StartRedrive does.
func (f *fakeActivities) StartRedrive(ctx context.Context, req delivery.Request) error {
	record(&f.mu, &f.redrives, req)
	if f.temporal == nil {
		return nil
	}
	_, err := f.temporal.ExecuteWorkflow(ctx, delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY), delivery.WorkflowDelivery, req)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return err
}

// record appends v to what mu guards.
func record[T any](mu *sync.Mutex, to *[]T, v T) {
	mu.Lock()
	defer mu.Unlock()
	*to = append(*to, v)
}

// snapshot returns copies of what the fakes saw.
func (f *fakeActivities) snapshot() ([]call, []delivery.DeadLetter, []delivery.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...), append([]delivery.DeadLetter(nil), f.deadLetters...), append([]delivery.Request(nil), f.redrives...)
}

// sent keeps the calls that sent a request: attempts not deferred.
func sent(calls []call) []call {
	var out []call
	for _, c := range calls {
		if c.activity != delivery.ActivityAdmit && !c.deferred {
			out = append(out, c)
		}
	}
	return out
}

// noPayload, given to a signal, sends it without any payload, as
// `temporal workflow signal --name redrive` without --input does.
type noPayload struct{}

// bareSignalConverter encodes noPayload as no payloads at all.
type bareSignalConverter struct{ converter.DataConverter }

func (c bareSignalConverter) ToPayloads(values ...any) (*commonpb.Payloads, error) {
	if len(values) == 1 {
		if _, ok := values[0].(noPayload); ok {
			return nil, nil
		}
	}
	return c.DataConverter.ToPayloads(values...)
}

// newRequest returns a delivery request with the given retry schedule.
func newRequest(name string, schedule []time.Duration) delivery.Request {
	eventID := "evt_" + name
	return delivery.Request{
		DeliveryID: delivery.ID(eventID, "ep_1"),
		EventID:    eventID,
		EventType:  "invoice.paid",
		EndpointID: "ep_1",
		Body:       fmt.Sprintf(`{"test":%q}`, name),
		Schedule:   schedule,
		Timeout:    5 * time.Second,
	}
}

// sealedRequest is newRequest with its body sealed, as ingest starts a
// delivery of an event with a data key (the fakes never open it).
func sealedRequest(name string, schedule []time.Duration) delivery.Request {
	req := newRequest(name, schedule)
	req.Body, req.SealedBody = "", []byte("sealed:"+name)
	return req
}
