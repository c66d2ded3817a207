package workflows_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Temporal's defaults for suggesting continue-as-new:
// limit.historyCount.suggestContinueAsNew and
// limit.historySize.suggestContinueAsNew. (It terminates a run at 50 MiB.)
const (
	suggestEvents = 4 * 1024
	suggestBytes  = 4 << 20
)

// eventEnvelope is what the meter charges each history event on top of
// the payloads it carries (ids, timestamps, task queue, retry policy):
// generous, since a real parked delivery's events cost under 150 bytes
// each beyond their payloads (e2e TestParkedDeliveryHistoryStaysSmall).
const eventEnvelope = 512

// historyMeter estimates the history a test workflow run records, as the
// server would count it: the start input; each scheduled activity's input
// and result (a local activity's result only, in its marker); timers,
// markers, search-attribute upserts, the continue-as-new input; and three
// workflow-task events after each timer or activity. Once the estimate
// passes Temporal's defaults it makes GetContinueAsNewSuggested true, as
// the server does. It is a worker interceptor of a test environment.
type historyMeter struct {
	interceptor.WorkerInterceptorBase
	suggest func() // makes GetContinueAsNewSuggested true

	mu       sync.Mutex
	events   int
	bytes    int
	maxBytes int      // the largest estimate seen
	versions []string // change IDs already marked
}

// charge adds events and the encoded size of values to the estimate.
func (m *historyMeter) charge(events int, values ...any) {
	size := 0
	for _, v := range values {
		switch v := v.(type) {
		case nil:
		case *commonpb.Payloads:
			size += v.Size()
		default:
			if p, err := converter.GetDefaultDataConverter().ToPayloads(v); err == nil {
				size += p.Size()
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events += events
	m.bytes += size + events*eventEnvelope
	m.maxBytes = max(m.maxBytes, m.bytes)
}

func (m *historyMeter) estimate() (events, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.events, m.bytes
}

func (m *historyMeter) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &meterActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, m: m}
}

func (m *historyMeter) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &meterWorkflow{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, m: m}
}

type meterActivity struct {
	interceptor.ActivityInboundInterceptorBase
	m *historyMeter
}

func (a *meterActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	res, err := a.Next.ExecuteActivity(ctx, in)
	var recorded []any
	if err == nil {
		recorded = append(recorded, res)
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.HasDetails() {
		var details json.RawMessage
		if appErr.Details(&details) == nil {
			recorded = append(recorded, details)
		}
	}
	if activity.GetInfo(ctx).IsLocalActivity {
		a.m.charge(1, recorded...) // its marker
		return res, err
	}
	a.m.charge(3+3, append(recorded, in.Args...)...) // scheduled, started, completed; a workflow task
	return res, err
}

type meterWorkflow struct {
	interceptor.WorkflowInboundInterceptorBase
	m *historyMeter
}

func (w *meterWorkflow) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return w.Next.Init(&meterOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, m: w.m})
}

func (w *meterWorkflow) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	w.m.charge(1+3, in.Args...) // started; the first workflow task
	res, err := w.Next.ExecuteWorkflow(ctx, in)
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		w.m.charge(1, can.Input)
	} else {
		w.m.charge(1, res)
	}
	return res, err
}

type meterOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	m *historyMeter
}

func (o *meterOutbound) GetInfo(ctx workflow.Context) *workflow.Info {
	if events, bytes := o.m.estimate(); events >= suggestEvents || bytes >= suggestBytes {
		o.m.suggest()
	}
	return o.Next.GetInfo(ctx)
}

func (o *meterOutbound) Sleep(ctx workflow.Context, d time.Duration) error {
	o.m.charge(2 + 3) // started, fired; a workflow task
	return o.Next.Sleep(ctx, d)
}

func (o *meterOutbound) NewTimer(ctx workflow.Context, d time.Duration) workflow.Future {
	o.m.charge(2 + 3) // started, fired; a workflow task
	return o.Next.NewTimer(ctx, d)
}

func (o *meterOutbound) NewTimerWithOptions(ctx workflow.Context, d time.Duration, opts workflow.TimerOptions) workflow.Future {
	o.m.charge(2 + 3)
	return o.Next.NewTimerWithOptions(ctx, d, opts)
}

func (o *meterOutbound) UpsertTypedSearchAttributes(ctx workflow.Context, attrs ...temporal.SearchAttributeUpdate) error {
	o.m.charge(1)
	return o.Next.UpsertTypedSearchAttributes(ctx, attrs...)
}

func (o *meterOutbound) GetVersion(ctx workflow.Context, changeID string, minSupported, maxSupported workflow.Version) workflow.Version {
	o.m.mu.Lock()
	marked := slices.Contains(o.m.versions, changeID)
	o.m.versions = append(o.m.versions, changeID)
	o.m.mu.Unlock()
	if !marked {
		o.m.charge(2) // the marker and its search-attribute upsert
	}
	return o.Next.GetVersion(ctx, changeID, minSupported, maxSupported)
}
