package main

import (
	"io"
	"testing"
	"time"
)

func TestParseBenchFlagsTuning(t *testing.T) {
	o, err := parseBenchFlags([]string{
		"-workflow-cache", "500", "-all-visibility-indexes", "-stock-fts-trigger", "-no-stmt-cache",
		"-fanout-n", "50", "-fanout-width", "4", "-fanout-filter", "payload.amount > 1", "-shapes-n", "600", "-storm-recover", "-recover-immediate", "100000", "-held-n", "2000", "-disabled-poll", "1m",
		"-temporal-dynamic", "system.enableActivityEagerExecution=true",
		"-temporal-dynamic", "history.visibilityProcessorSchedulerWorkerCount=1",
		"-temporal-dynamic", "history.timerProcessorMaxPollInterval=30s",
		"-temporal-dynamic", "some.key=text",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.cfg.TemporalTuning.NoStatementCache || o.cfg.FanoutN != 50 || o.cfg.FanoutWidth != 4 || o.cfg.FanoutFilter != "payload.amount > 1" || o.cfg.ShapesN != 600 || !o.cfg.StormRecover || o.cfg.RecoverImmediate != 100000 || o.cfg.HeldN != 2000 || o.cfg.DisabledPoll != time.Minute {
		t.Errorf("no stmt cache %v, fan-out %d x %d, shapes %d", o.cfg.TemporalTuning.NoStatementCache, o.cfg.FanoutN, o.cfg.FanoutWidth, o.cfg.ShapesN)
	}
	if o.cfg.WorkflowCacheSize != 500 || !o.cfg.TemporalTuning.AllVisibilityIndexes || !o.ext.AllVisibilityIndexes || !o.cfg.TemporalTuning.StockFTSTrigger {
		t.Errorf("cache %d, all indexes %v (external %v)", o.cfg.WorkflowCacheSize, o.cfg.TemporalTuning.AllVisibilityIndexes, o.ext.AllVisibilityIndexes)
	}
	want := map[string]any{
		"system.enableActivityEagerExecution":             true,
		"history.visibilityProcessorSchedulerWorkerCount": 1,
		"history.timerProcessorMaxPollInterval":           30 * time.Second,
		"some.key":                                        "text",
	}
	got := o.cfg.TemporalTuning.Dynamic
	if len(got) != len(want) {
		t.Fatalf("dynamic config %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}

	if _, err := parseBenchFlags([]string{"-temporal-dynamic", "novalue"}, io.Discard); err == nil {
		t.Error("accepted -temporal-dynamic without =")
	}
}
