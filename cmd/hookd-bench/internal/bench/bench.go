package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"
)

// Result is one benchmark run.
type Result struct {
	Config  Config
	Machine string
	Started time.Time
	// LoadBefore and LoadAfter are the machine's load averages.
	LoadBefore, LoadAfter string
	Hookd                 HookdResult
	Baseline              *BaselineResult
	Shapes                *ShapesResult
}

// Run measures hookd, then the naive baseline (so each phase's peak RSS is
// its own), and writes the report to out.
func Run(ctx context.Context, cfg Config, out io.Writer) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	res := Result{Config: cfg, Machine: machine(), Started: time.Now(), LoadBefore: loadAvg()}
	finish := func(err error) (Result, error) {
		res.LoadAfter = loadAvg()
		report(out, res)
		return res, err
	}
	if res.Hookd, err = runHookd(ctx, cfg); err != nil {
		return finish(err)
	}
	if cfg.BaselineN > 0 {
		settle(ctx)
		b, err := runBaseline(ctx, cfg)
		res.Baseline = &b
		if err != nil {
			return finish(err)
		}
	}
	if cfg.ShapesN > 0 {
		s, err := runShapes(ctx, cfg)
		res.Shapes = &s
		if err != nil {
			return finish(err)
		}
	}
	return finish(nil)
}

// Targets the report checks, for a 2-core machine (docs/performance.md).
const (
	targetRatio     = 5
	targetRate      = 100
	targetE2EP50    = 50 * time.Millisecond
	targetE2EP99    = 250 * time.Millisecond
	targetIngestP99 = 100 * time.Millisecond
	targetHistory   = 7
	targetPeakRSSMB = 600
	// targetFanoutCPU bounds CPU per delivery in fan-out against 1:1.
	targetFanoutCPU = 0.8
	// targetFilterCPU bounds CPU per delivery of fan-out with a content
	// filter on every endpoint against fan-out without.
	targetFilterCPU  = 1.1
	fmtRow           = "| %-44s | %-22s | %-22s | %-12s | %-4s |\n"
	reportTimeFormat = "2006-01-02 15:04 MST"
)

// report writes the result as Markdown tables.
func report(w io.Writer, r Result) {
	h, c := r.Hookd, r.Config
	b := r.Baseline
	if b == nil {
		b = &BaselineResult{}
	}
	fmt.Fprintf(w, "\nhookd-bench, %s, %s\n", r.Started.Format(reportTimeFormat), r.Machine)
	fmt.Fprintf(w, "load average before: %s, after: %s (other work on the machine skews every figure)\n", r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(w, "saturation: N=%d, %d clients, batch %d, ingest %s; baseline N=%d, %d starters; light: %.0f events/s for %s; fan-out: %d events x %d endpoints, %d clients\n\n",
		c.N, c.Clients, c.Batch, c.Ingest, c.BaselineN, c.BaselineStarters, c.LightRate, c.LightDuration, c.FanoutN, c.FanoutWidth, cmp.Or(c.FanoutClients, c.Clients))
	fmt.Fprintf(w, fmtRow, "measure", "hookd (embedded)", "naive baseline", "target", "met")
	fmt.Fprintf(w, fmtRow, "---", "---", "---", "---", "---")
	ratio := 0.0
	if b.Saturation.Rate > 0 {
		ratio = h.Saturation.Rate / b.Saturation.Rate
	}
	row(w, "deliveries/s at saturation", rate(h.Saturation), rate(b.Saturation), ">= 100", h.Saturation.Rate >= targetRate)
	row(w, "ratio to baseline", fmt.Sprintf("%.1fx", ratio), "1x", ">= 5x", ratio >= targetRatio)
	row(w, "CPU% at saturation (200% = 2 cores)", pct(h.Saturation.Usage), pct(b.Saturation.Usage), "", true)
	row(w, "CPU ms per delivery (whole process)", cpuPer(h.Saturation), cpuPer(b.Saturation), "", true)
	row(w, "peak RSS at saturation (VmHWM)", peak(h.Saturation.Usage), peak(b.Saturation.Usage), "<= 600 MB", h.Saturation.Usage.PeakMB <= targetPeakRSSMB)
	row(w, "ingest p50 / p99 at 10/s", h.Light.Ingest.pair(), b.Light.Ingest.pair(), "p99 <= 100 ms", h.Light.Ingest.pct(99) <= targetIngestP99)
	row(w, "ingest-to-receiver p50 / p99 at 10/s", h.Light.EndToEnd.pair(), b.Light.EndToEnd.pair(), "50 / 250 ms",
		h.Light.EndToEnd.pct(50) <= targetE2EP50 && h.Light.EndToEnd.pct(99) <= targetE2EP99)
	row(w, "ingest p50 / p99 at saturation", h.Saturation.Ingest.pair(), b.Saturation.Ingest.pair(), "", true)
	row(w, "ingest-to-receiver p50 / p99 at saturation", h.Saturation.EndToEnd.pair(), b.Saturation.EndToEnd.pair(), "", true)
	if f := h.Fanout; f.N > 0 {
		per, one := cpuPerDelivery(f), cpuPerDelivery(h.Saturation)
		row(w, fmt.Sprintf("fan-out x%d: deliveries/s (events/s)", c.FanoutWidth), fmt.Sprintf("%.1f (%.1f)", f.Rate, f.Rate/float64(c.FanoutWidth)), "-", "", true)
		row(w, fmt.Sprintf("fan-out x%d: CPU ms per delivery", c.FanoutWidth), fmt.Sprintf("%s (%.2fx 1:1)", cpuPer(f), ratioOf(per, one)), "-", fmt.Sprintf("<= %.1fx 1:1", targetFanoutCPU),
			per > 0 && one > 0 && ratioOf(per, one) <= targetFanoutCPU)
		row(w, fmt.Sprintf("fan-out x%d: CPU%% / peak RSS", c.FanoutWidth), pct(f.Usage)+" / "+peak(f.Usage), "-", "", true)
		row(w, fmt.Sprintf("fan-out x%d: ingest / to-receiver p50 / p99", c.FanoutWidth), f.Ingest.pair()+", "+f.EndToEnd.pair(), "-", "", true)
		if ff := h.FanoutFiltered; ff.N > 0 {
			filtered := cpuPerDelivery(ff)
			row(w, fmt.Sprintf("fan-out x%d filtered: deliveries/s", c.FanoutWidth), fmt.Sprintf("%.1f", ff.Rate), "-", "", true)
			row(w, fmt.Sprintf("fan-out x%d filtered: CPU ms per delivery", c.FanoutWidth), fmt.Sprintf("%s (%.2fx unfiltered)", cpuPer(ff), ratioOf(filtered, per)), "-", "<= 1.1x",
				filtered > 0 && per > 0 && ratioOf(filtered, per) <= targetFilterCPU)
			row(w, fmt.Sprintf("fan-out x%d filtered: ingest / to-receiver p50 / p99", c.FanoutWidth), ff.Ingest.pair()+", "+ff.EndToEnd.pair(), "-", "", true)
		}
	}
	if sc, fc := h.SaturationCommits, h.FanoutCommits; sc.Alone+sc.Batches+fc.Alone+fc.Batches > 0 {
		row(w, "visibility writes per SQLite commit: 1:1 / fan-out", fmt.Sprintf("%.1f / %.1f", sc.PerCommit(), fc.PerCommit()), "-", "", true)
	}
	row(w, "history events per healthy delivery", hist(h.History), hist(b.History), "<= 7", h.History.Max <= targetHistory && h.History.Sampled > 0)
	row(w, "refused starts (retried) / lost", fmt.Sprintf("%d / %d", h.Saturation.Errors, h.Saturation.Lost), fmt.Sprintf("%d / %d", b.Saturation.Errors, b.Saturation.Lost), "0 lost", h.Saturation.Lost == 0)
	if s := h.Storm; s != nil {
		fmt.Fprintf(w, "\nretry storm: %d deliveries, schedule %v, receiver answering 503\n\n", s.N, s.Schedule)
		fmt.Fprintf(w, "| %-44s | %-22s |\n| --- | --- |\n", "measure", "hookd")
		kv(w, "ingest while down", fmt.Sprintf("%.1f events/s", s.IngestRate))
		kv(w, "all parked after (visibility count)", s.Park.Round(time.Second).String())
		kv(w, "real attempts refused (503)", fmt.Sprint(s.Refused))
		kv(w, "RSS once parked / Go heap in use", fmt.Sprintf("%.0f MB / %.0f MB", s.ParkedRSSMB, s.HeapMB))
		kv(w, "peak RSS while down (ingest + parked)", fmt.Sprintf("%.0f MB", s.PeakMB))
		if rec := s.Recovered; rec != nil {
			kv(w, "drain started by", fmt.Sprintf("recover (API): %d woken, paced %v, answered in %s", rec.Woken, rec.Paced, rec.Took.Round(time.Millisecond)))
		}
		kv(w, "receiver back -> first delivery", s.FirstAfter.Round(time.Millisecond).String())
		kv(w, "receiver back -> all delivered", s.Drain.Round(time.Millisecond).String())
		if p := s.WhileParked; p.N > 0 {
			kv(w, "healthy deliveries/s while parked", fmt.Sprintf("%.1f (N=%d, %.0f%% of saturation)", p.Rate, p.N, 100*ratioOf(p.Rate, h.Saturation.Rate)))
			kv(w, "  ingest p50 / p99 while parked", p.Ingest.pair())
		}
		kv(w, "drain rate (first to last arrival)", fmt.Sprintf("%.1f deliveries/s (%.0f%% of saturation)", s.DrainRate, 100*ratioOf(s.DrainRate, h.Saturation.Rate)))
		kv(w, "CPU% / peak RSS while draining", fmt.Sprintf("%s / %s", pct(s.DrainUsage), peak(s.DrainUsage)))
	}
	if hd := h.Held; hd != nil {
		poll := "hookd's default"
		if hd.Poll > 0 {
			poll = hd.Poll.String()
		}
		fmt.Fprintf(w, "\nheld by a disabled endpoint: %d deliveries, checking the switch at %s\n\n", hd.N, poll)
		fmt.Fprintf(w, "| %-44s | %-22s |\n| --- | --- |\n", "measure", "hookd")
		kv(w, "CPU% / RSS while held", fmt.Sprintf("%s / %s over %s", pct(hd.Usage), peak(hd.Usage), hd.Usage.Wall.Round(time.Second)))
		if hd.N > 0 && hd.Usage.Wall > 0 {
			kv(w, "CPU ms per held delivery per minute", fmt.Sprintf("%.2f", float64(hd.Usage.CPU)/float64(time.Millisecond)/float64(hd.N)/hd.Usage.Wall.Minutes()))
		}
	}
	if t := h.Throttle; t != nil {
		reportThrottle(w, *t)
	}
	if s := r.Shapes; s != nil {
		reportShapes(w, *s)
	}
}

// reportShapes writes the workflow-shape experiment: CPU per delivery of
// each shape and its ratio to the 1:1 shape's.
func reportShapes(w io.Writer, s ShapesResult) {
	fmt.Fprintf(w, "\nworkflow shapes on the embedded server, without hookd's API, store or codec (fan-out x%d)\n\n", s.Width)
	fmt.Fprintf(w, "| %-44s | %-22s | %-22s |\n| --- | --- | --- |\n", "shape", "deliveries/s (CPU%)", "CPU ms per delivery")
	one := cpuPerDelivery(s.OneToOne)
	for _, r := range []struct {
		name string
		res  LoadResult
	}{
		{"1:1, a workflow per delivery", s.OneToOne},
		{"fan-out, a workflow per delivery", s.PerDelivery},
		{"fan-out, a workflow per event", s.PerEvent},
	} {
		fmt.Fprintf(w, "| %-44s | %-22s | %-22s |\n", r.name, fmt.Sprintf("%.1f (%s)", r.res.Rate, pct(r.res.Usage)),
			fmt.Sprintf("%s (%.2fx 1:1)", cpuPer(r.res), ratioOf(cpuPerDelivery(r.res), one)))
	}
}

func row(w io.Writer, name, hookd, base, target string, met bool) {
	ok := "yes"
	if !met {
		ok = "NO"
	}
	if target == "" {
		ok = ""
	}
	fmt.Fprintf(w, fmtRow, name, hookd, base, target, ok)
}

func kv(w io.Writer, k, v string) { fmt.Fprintf(w, "| %-44s | %-22s |\n", k, v) }

func rate(r LoadResult) string {
	if r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f (N=%d)", r.Rate, r.N)
}

func pct(u usage) string {
	if u.Wall == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", u.CPUPercent())
}

// cpuPer is CPU time per delivery at saturation: less sensitive than
// deliveries/s to other work competing for the cores.
func cpuPer(r LoadResult) string {
	if len(r.EndToEnd) == 0 {
		return "-"
	}
	return ms(cpuPerDelivery(r))
}

// cpuPerDelivery is the phase's CPU time over its deliveries (zero if none
// arrived).
func cpuPerDelivery(r LoadResult) time.Duration {
	if len(r.EndToEnd) == 0 {
		return 0
	}
	return r.Usage.CPU / time.Duration(len(r.EndToEnd))
}

// ratioOf is a/b, or 0 when b is not positive.
func ratioOf[T time.Duration | float64](a, b T) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func peak(u usage) string {
	if u.Wall == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MB", u.PeakMB)
}

func hist(h HistoryResult) string {
	if h.Sampled == 0 {
		return "-"
	}
	if h.Min == h.Max {
		return fmt.Sprintf("%d (%d sampled)", h.Max, h.Sampled)
	}
	return fmt.Sprintf("%.1f (%d-%d, %d sampled)", h.Mean, h.Min, h.Max, h.Sampled)
}
