package charttest

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

const (
	rulesFile     = "../../prometheus/hookd-rules.yaml"
	dashboardFile = "../../grafana/hookd.json"
	monitoringDoc = "../../../docs/monitoring.md"
	runbookPrefix = "https://github.com/hookd/hookd/blob/main/docs/monitoring.md#"
)

// The alerts docs/monitoring.md has a runbook for.
var wantAlerts = []string{
	"HookdCircuitsOpenLong", "HookdDeadLetterNearExpiry", "HookdDeadLettersGrowing",
	"HookdDeliverySuccessRateLow", "HookdPendingDeliveryTooOld",
}

// anchors returns the GitHub anchors of a Markdown file's headings.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	out := map[string]bool{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if h, ok := strings.CutPrefix(line, "#"); ok {
			h = strings.TrimSpace(strings.TrimLeft(h, "#"))
			out[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(h), ""), " ", "-")] = true
		}
	}
	return out
}

func TestAlertRules(t *testing.T) {
	p := parser.NewParser(parser.Options{})
	groups, errs := rulefmt.ParseFile(rulesFile, false, model.UTF8Validation, p, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, err := range errs {
		t.Error(err)
	}
	if groups == nil {
		t.FailNow()
	}
	doc := anchors(t, monitoringDoc)
	if !doc["runbooks"] {
		t.Errorf("%s has no Runbooks section", monitoringDoc)
	}
	var alerts []string
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts = append(alerts, r.Alert)
			if r.For == 0 {
				t.Errorf("%s fires on one evaluation: give it a for:", r.Alert)
			}
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("%s: severity %q", r.Alert, s)
			}
			for _, a := range []string{"summary", "description", "runbook_url"} {
				if r.Annotations[a] == "" {
					t.Errorf("%s: no %s", r.Alert, a)
				}
			}
			anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], runbookPrefix)
			if !ok || anchor != strings.ToLower(r.Alert) || !doc[anchor] {
				t.Errorf("%s: runbook_url %q; want %s%s, a heading of %s", r.Alert, r.Annotations["runbook_url"], runbookPrefix, strings.ToLower(r.Alert), monitoringDoc)
			}
			// Every selector names a metric (the main module's
			// internal/metrics test checks the names exist).
			expr, err := p.ParseExpr(r.Expr)
			if err != nil {
				t.Fatalf("%s: %v", r.Alert, err)
			}
			if len(selectors(expr)) == 0 {
				t.Errorf("%s selects no metric", r.Alert)
			}
		}
	}
	slices.Sort(alerts)
	if !slices.Equal(alerts, wantAlerts) {
		t.Errorf("alerts %v, want %v", alerts, wantAlerts)
	}
}

// selectors returns the metric names an expression selects.
func selectors(e parser.Node) []string {
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	return names
}

// grafanaVars stands in for the dashboard's variables, so its queries
// parse as PromQL.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$job", ".*", "${job}", ".*")

func TestDashboard(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		Expr       string `json:"expr"`
		RefID      string `json:"refId"`
		Datasource struct {
			UID string `json:"uid"`
		} `json:"datasource"`
	}
	type panel struct {
		ID      int      `json:"id"`
		Type    string   `json:"type"`
		Title   string   `json:"title"`
		Targets []target `json:"targets"`
		GridPos *struct {
			H, W, X, Y int
		} `json:"gridPos"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
	}
	var dash struct {
		Title      string  `json:"title"`
		UID        string  `json:"uid"`
		Schema     int     `json:"schemaVersion"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s is not importable JSON: %v", dashboardFile, err)
	}
	if dash.Title == "" || dash.UID == "" || dash.Schema < 30 || len(dash.Panels) == 0 {
		t.Fatalf("dashboard title %q uid %q schemaVersion %d, %d panels", dash.Title, dash.UID, dash.Schema, len(dash.Panels))
	}
	if i := slices.IndexFunc(dash.Templating.List, func(v struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}) bool {
		return v.Name == "datasource" && v.Type == "datasource"
	}); i < 0 {
		t.Error("no datasource variable: the dashboard would be bound to one Prometheus")
	}
	p := parser.NewParser(parser.Options{})
	ids := map[int]bool{}
	used := map[string]bool{}
	for _, pn := range dash.Panels {
		if ids[pn.ID] {
			t.Errorf("panel id %d twice", pn.ID)
		}
		ids[pn.ID] = true
		if pn.GridPos == nil || pn.GridPos.W == 0 || pn.GridPos.H == 0 || pn.GridPos.X+pn.GridPos.W > 24 {
			t.Errorf("panel %q: gridPos %+v", pn.Title, pn.GridPos)
		}
		if pn.Type == "row" {
			continue
		}
		if pn.Datasource == nil || pn.Datasource.UID != "${datasource}" || len(pn.Targets) == 0 {
			t.Errorf("panel %q: datasource %+v, %d targets", pn.Title, pn.Datasource, len(pn.Targets))
		}
		for _, tg := range pn.Targets {
			e, err := p.ParseExpr(grafanaVars.Replace(tg.Expr))
			if err != nil {
				t.Errorf("panel %q %s: %v", pn.Title, tg.RefID, err)
				continue
			}
			for _, n := range selectors(e) {
				used[n] = true
			}
		}
	}
	// What the dashboard is for.
	for _, want := range []string{
		"hookd_attempts_total", "hookd_deliveries_total", "hookd_attempt_duration_seconds_bucket",
		"hookd_dead_letters", "hookd_dead_letter_oldest_age_seconds", "hookd_oldest_pending_delivery_age_seconds",
		"hookd_circuits", "temporal_workflow_task_schedule_to_start_latency_seconds_bucket", "temporal_worker_task_slots_available",
	} {
		if !used[want] {
			t.Errorf("no panel queries %s", want)
		}
	}
}
