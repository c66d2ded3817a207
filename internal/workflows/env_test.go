package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/workflows"
)

// t0 is when every test workflow starts.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// testEnv is a time-skipping test environment with hookd's workflows
// registered, fake activities under the real names, and a record of the
// HookdStatus values the workflow upserts.
type testEnv struct {
	*testsuite.TestWorkflowEnvironment
	fakes    *fakeActivities
	statuses []string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(t0)
	env.SetDataConverter(bareSignalConverter{converter.GetDefaultDataConverter()})
	te := &testEnv{TestWorkflowEnvironment: env, fakes: &fakeActivities{now: func() time.Time { return env.Now().UTC() }, outcome: outcomes()}}
	workflows.Register(env)
	te.fakes.register(env)
	env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(delivery.AttrStatus); ok {
			te.statuses = append(te.statuses, v)
		}
	}).Return(nil).Maybe()
	t.Cleanup(func() { env.AssertExpectations(t) })
	return te
}

// meter installs a history meter on the environment (before it runs).
func (e *testEnv) meter() *historyMeter {
	m := &historyMeter{suggest: func() { e.SetContinueAsNewSuggested(true) }}
	e.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{m}})
	return m
}

// signalAt sends a signal once d of workflow time has passed; at d = 0 it
// arrives with the start, as a signal-with-start does.
func (e *testEnv) signalAt(d time.Duration, name string, arg any) {
	e.RegisterDelayedCallback(func() { e.SignalWorkflow(name, arg) }, d)
}

// queryAt runs a query once d of workflow time has passed and decodes its
// answer into into.
func (e *testEnv) queryAt(t *testing.T, d time.Duration, query string, into any) {
	e.RegisterDelayedCallback(func() {
		v, err := e.QueryWorkflow(query)
		if err != nil {
			t.Errorf("query %s at %s: %v", query, d, err)
			return
		}
		if err := v.Get(into); err != nil {
			t.Errorf("decode %s at %s: %v", query, d, err)
		}
	}, d)
}
