package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// reportExternal writes the external mode's result as a Markdown table,
// one column per worker count.
func reportExternal(w io.Writer, r ExternalResult) {
	c := r.Config
	fmt.Fprintf(w, "\nhookd-bench -external, %s, %s\n", r.Started.Format(reportTimeFormat), r.Machine)
	fmt.Fprintf(w, "load average before: %s, after: %s (other work on the machine skews every figure)\n", r.LoadBefore, r.LoadAfter)
	hookd := "N `hookd worker`, one `hookd api`"
	if c.Serve {
		hookd = "N `hookd serve` (worker and API in one; events posted to each in turn)"
	}
	pg, temporal := "PostgreSQL (endpoint store)", "SQLite"
	if c.TemporalPostgres {
		pg, temporal = "PostgreSQL (endpoint store, and Temporal's persistence in databases temporal and temporal_visibility: its CPU includes both)", "persisted in that PostgreSQL"
	}
	fmt.Fprintf(w, "processes on this machine: %s, one Temporal server (`hookd dev --only-temporal`, %s), "+
		"%s, the bench (load generator + receiver); saturation: N=%d events, %d clients, POST /v1/events\n", pg, temporal, hookd, c.N, c.Clients)
	fmt.Fprintf(w, "CPU: utime+stime from /proc/PID/stat before and after the phase; PostgreSQL is the postmaster and its direct children, "+
		"backends that exited meanwhile through the postmaster's reaped-children times (exited but not yet reaped ones are missed)\n\n")

	cols := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		cols[i] = fmt.Sprintf("%d worker", run.Workers)
		if run.Serve {
			cols[i] = fmt.Sprintf("%d serve process", run.Workers)
		}
		if run.Workers != 1 {
			cols[i] += map[bool]string{false: "s", true: "es"}[run.Serve]
		}
	}
	line := func(name string, vals []string) {
		fmt.Fprintf(w, "| %-51s |", name)
		for _, v := range vals {
			fmt.Fprintf(w, " %-31s |", v)
		}
		fmt.Fprintln(w)
	}
	each := func(name string, f func(ExternalRun) string) {
		vals := make([]string, len(r.Runs))
		for i, run := range r.Runs {
			vals[i] = f(run)
		}
		line(name, vals)
	}
	line("measure", cols)
	line("---", repeat("---", len(r.Runs)))
	each("load average before / after", func(run ExternalRun) string { return run.LoadBefore + " / " + run.LoadAfter })
	each("deliveries/s (first post to last receipt)", func(run ExternalRun) string { return rate(run.Saturation) })
	each("ingest p50 / p99", func(run ExternalRun) string { return run.Saturation.Ingest.pair() })
	each("ingest-to-receiver p50 / p99", func(run ExternalRun) string { return run.Saturation.EndToEnd.pair() })
	for _, kind := range r.kinds(kindWorker, kindAPI, kindServe, kindTemporal, kindPostgres, kindBench) {
		each("CPU ms per delivery (CPU%): "+kind, func(run ExternalRun) string { return kindCPU(run, kind) })
	}
	each("PostgreSQL CPU ms per delivery by database", func(run ExternalRun) string {
		return formatByDatabase(run.PostgresByDatabase, len(run.Saturation.EndToEnd))
	})
	each("PostgreSQL transactions / rows read per delivery by database, the phase and "+pgSettle.String()+" after", func(run ExternalRun) string {
		return formatCounts(run.PostgresCounts, len(run.Saturation.EndToEnd))
	})
	each("CPU ms per delivery (CPU%): total", func(run ExternalRun) string {
		var t time.Duration
		for _, p := range run.Processes {
			t += p.CPU
		}
		return cpuShare(run.Saturation, t)
	})
	for _, kind := range r.kinds(kindWorker, kindAPI, kindServe, kindTemporal) {
		each("RSS at end (VmRSS): "+kind, func(run ExternalRun) string { return kindRSS(run, kind) })
	}
	each("refused starts (retried) / lost", func(run ExternalRun) string {
		return fmt.Sprintf("%d / %d", run.Saturation.Errors, run.Saturation.Lost)
	})
	each("clean exit on SIGTERM", func(run ExternalRun) string {
		if run.StopErr != nil {
			return "NO"
		}
		return "yes"
	})
}

// kinds returns those of kinds that some run measured, in order.
func (r ExternalResult) kinds(kinds ...string) []string {
	var out []string
	for _, k := range kinds {
		for _, run := range r.Runs {
			if slices.ContainsFunc(run.Processes, func(p ProcessUsage) bool { return p.Kind == k }) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// kindCPU formats one kind's CPU per delivery and its CPU% of the phase.
func kindCPU(run ExternalRun, kind string) string {
	for _, p := range run.Processes {
		if p.Kind == kind {
			return cpuShare(run.Saturation, p.CPU)
		}
	}
	return "-"
}

// cpuShare is cpu over the phase's deliveries, with cpu over its wall
// time as a percentage (200% = 2 cores).
func cpuShare(r LoadResult, cpu time.Duration) string {
	if len(r.EndToEnd) == 0 || r.Usage.Wall <= 0 {
		return "-"
	}
	per := cpu / time.Duration(len(r.EndToEnd))
	return fmt.Sprintf("%s (%.0f%%)", ms(per), 100*float64(cpu)/float64(r.Usage.Wall))
}

// kindRSS formats the RSS of each process of a kind, "112 + 108 MB".
func kindRSS(run ExternalRun, kind string) string {
	for _, p := range run.Processes {
		if p.Kind != kind || len(p.RSSMB) == 0 {
			continue
		}
		parts := make([]string, len(p.RSSMB))
		for i, v := range p.RSSMB {
			parts[i] = fmt.Sprintf("%.0f", v)
		}
		return strings.Join(parts, " + ") + " MB"
	}
	return "-"
}
