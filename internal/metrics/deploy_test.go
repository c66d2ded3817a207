package metrics_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/metrics"
)

// sdkMetrics are the Temporal SDK metrics deploy/grafana's dashboard may
// use, by the SDK's name (go.temporal.io/sdk's internal/common/metrics)
// and kind: hookd's adapter serves a counter as name_total and a timer
// as the histogram name_seconds. The SDK creates them as its worker runs,
// so they are made here by hand.
var sdkMetrics = map[string]string{
	"temporal_request":                                 "counter",
	"temporal_request_failure":                         "counter",
	"temporal_long_request":                            "counter",
	"temporal_long_request_failure":                    "counter",
	"temporal_request_latency":                         "timer",
	"temporal_workflow_task_schedule_to_start_latency": "timer",
	"temporal_workflow_task_execution_latency":         "timer",
	"temporal_workflow_task_execution_failed":          "counter",
	"temporal_activity_schedule_to_start_latency":      "timer",
	"temporal_activity_execution_latency":              "timer",
	"temporal_activity_execution_failed":               "counter",
	"temporal_local_activity_execution_latency":        "timer",
	"temporal_worker_task_slots_available":             "gauge",
	"temporal_worker_task_slots_used":                  "gauge",
	"temporal_num_pollers":                             "gauge",
	"temporal_sticky_cache_size":                       "gauge",
	"temporal_sticky_cache_hit":                        "counter",
	"temporal_sticky_cache_miss":                       "counter",
	"temporal_workflow_completed":                      "counter",
	"temporal_workflow_failed":                         "counter",
}

// emptyVisibility answers every visibility question with nothing.
type emptyVisibility struct{}

func (emptyVisibility) CountWorkflow(context.Context, *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return &workflowservice.CountWorkflowExecutionsResponse{}, nil
}

func (emptyVisibility) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	return &workflowservice.ListWorkflowExecutionsResponse{}, nil
}

type someCircuits map[string]circuit.State

func (c someCircuits) CircuitStates(context.Context) (map[string]circuit.State, error) { return c, nil }

// served returns the series names a hookd process serves once every
// metric has a value: its families, plus _bucket, _sum and _count of the
// histograms.
func served(t *testing.T) map[string]bool {
	t.Helper()
	m := metrics.New(metrics.Config{}) // as internal/app's observability makes it
	for _, o := range []delivery.Outcome{delivery.OutcomeSuccess, delivery.OutcomeRetryable, delivery.OutcomePermanent} {
		m.Observe("ep_a", delivery.Attempt{Outcome: o, Duration: time.Second, NextAttempt: time.Now()})
	}
	for _, s := range []delivery.Status{delivery.StatusFailed, delivery.StatusExhausted} {
		m.DeliveryEnded(s)
	}
	for _, o := range []string{metrics.RedriveStarted, metrics.RedriveSkipped, metrics.RedriveFailed} {
		m.Redrive(o)
	}
	m.DuplicateIngest()
	src := metrics.Sources{Temporal: emptyVisibility{}, Circuits: someCircuits{"ep_a": circuit.Open, "ep_b": circuit.Closed}}
	if err := m.Refresh(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	sdk := m.SDKHandler()
	for name, kind := range sdkMetrics {
		switch kind {
		case "counter":
			sdk.Counter(name).Inc(1)
		case "gauge":
			sdk.Gauge(name).Update(1)
		case "timer":
			sdk.Timer(name).Record(time.Second)
		}
	}

	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
		if f.GetType().String() == "HISTOGRAM" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+s] = true
			}
		}
	}
	return names
}

// metricName finds the names of hookd's, the SDK's and the Go runtime's
// metrics in PromQL. Label names and values never start so.
var metricName = regexp.MustCompile(`\b(?:hookd|temporal|go|process)_[a-zA-Z0-9_]*[a-zA-Z0-9]\b`)

// deployFiles are the files under deploy/ that query hookd's metrics.
func deployFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../deploy/prometheus/*.yaml", "../../deploy/prometheus/*.yml", "../../deploy/grafana/*.json"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("want the alert rules and the dashboard under deploy/, found %v", files)
	}
	return files
}

// exprs returns the PromQL in a rule file (expr:) or a Grafana dashboard
// (every target's expr, and the variables' queries).
func exprs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".json") {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []string
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					if s, ok := c.(string); ok && (k == "expr" || k == "query" || k == "definition") {
						out = append(out, s)
					}
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		walk(v)
		return out
	}
	// A rule file: the whole text but comments, annotations and runbook
	// links, which name metrics only in prose.
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "summary:") || strings.HasPrefix(trim, "description:") || strings.HasPrefix(trim, "runbook_url:") {
			continue
		}
		out = append(out, line)
	}
	return []string{strings.Join(out, "\n")}
}

// TestDeployQueriesUseServedMetrics fails when an alert rule or a
// dashboard panel queries a metric hookd does not serve: a renamed metric
// would otherwise leave an alert that never fires.
func TestDeployQueriesUseServedMetrics(t *testing.T) {
	have := served(t)
	for _, f := range deployFiles(t) {
		used := map[string]bool{}
		for _, e := range exprs(t, f) {
			for _, n := range metricName.FindAllString(e, -1) {
				used[n] = true
			}
		}
		if len(used) == 0 {
			t.Errorf("%s queries no hookd metric", f)
		}
		for _, n := range slices.Sorted(maps.Keys(used)) {
			if !have[n] {
				t.Errorf("%s: %s is not a metric hookd serves", filepath.Base(f), n)
			}
		}
	}
}

// TestSDKMetricNamesAreTheSDKs checks sdkMetrics against the SDK's own
// list of names, where the module's source is at hand.
func TestSDKMetricNamesAreTheSDKs(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.temporal.io/sdk").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "common", "metrics", "constants.go"))
	if err != nil {
		t.Skipf("the SDK's metric names: %v", err)
	}
	// Constants are written prefix + "name", or as another constant + "_suffix".
	consts := map[string]string{}
	re := regexp.MustCompile(`(?m)^\s*(\w+)\s*=\s*(\w+)\s*\+\s*"(\w+)"`)
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		consts[m[1]] = m[2] + "\x00" + m[3]
	}
	names := map[string]bool{}
	var resolve func(string) string
	resolve = func(c string) string {
		if c == "TemporalMetricsPrefix" {
			return "temporal_"
		}
		base, suffix, ok := strings.Cut(consts[c], "\x00")
		if !ok {
			return ""
		}
		return resolve(base) + suffix
	}
	for c := range consts {
		if n := resolve(c); n != "" {
			names[n] = true
		}
	}
	if len(names) < 20 {
		t.Fatalf("read %d names from the SDK's constants; has their form changed?", len(names))
	}
	for n := range sdkMetrics {
		if !names[n] {
			t.Errorf("%s is not a Temporal SDK metric", n)
		}
	}
}
