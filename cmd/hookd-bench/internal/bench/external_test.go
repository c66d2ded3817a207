package bench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// statLine builds a /proc/PID/stat line with the fields the bench reads
// and zeros elsewhere.
func statLine(pid int, comm string, ppid int, utime, stime, cutime, cstime, start uint64) string {
	f := make([]string, 50)
	for i := range f {
		f[i] = "0"
	}
	f[0], f[1], f[2], f[3] = fmt.Sprint(pid), "("+comm+")", "S", fmt.Sprint(ppid)
	f[13], f[14], f[15], f[16], f[21] = fmt.Sprint(utime), fmt.Sprint(stime), fmt.Sprint(cutime), fmt.Sprint(cstime), fmt.Sprint(start)
	return strings.Join(f, " ") + "\n"
}

func TestParseStat(t *testing.T) {
	// A command name with spaces and a ')' must not shift the fields.
	s, err := parseStat([]byte(statLine(4711, "postgres: hookd (x) idle", 42, 120, 30, 7, 3, 99999)))
	require.NoError(t, err)
	require.Equal(t, procStat{PID: 4711, PPID: 42, UTime: 120, STime: 30, CUTime: 7, CSTime: 3, Start: 99999}, s)

	// A real line, from this process.
	raw, err := os.ReadFile("/proc/self/stat")
	require.NoError(t, err)
	s, err = parseStat(raw)
	require.NoError(t, err)
	require.Equal(t, os.Getpid(), s.PID)
	require.Equal(t, os.Getppid(), s.PPID)
	require.Positive(t, s.Start)

	for _, bad := range []string{"", "12 no-parens S 1", "12 (short) S 1 2 3", "x (c) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"} {
		_, err := parseStat([]byte(bad))
		require.Error(t, err, "%q", bad)
	}
}

func TestTreeCPU(t *testing.T) {
	const pm = 100 // the postmaster
	ps := func(pid, ppid int, cpu, reaped, start uint64) procStat {
		return procStat{PID: pid, PPID: ppid, UTime: cpu, CUTime: reaped, Start: start}
	}
	before, err := snapshotTree([]procStat{
		ps(pm, 1, 1000, 50, 1),
		ps(101, pm, 200, 0, 10), // keeps running: +30
		ps(102, pm, 400, 0, 11), // exits during the phase having used 450 in all: +50
		ps(103, pm, 70, 0, 12),  // exits, PID reused by a new backend
		ps(200, 1, 5000, 0, 13), // not ours
		ps(201, 200, 5000, 0, 14),
	}, pm)
	require.NoError(t, err)
	after, err := snapshotTree([]procStat{
		ps(pm, 1, 1010, 50+450+90+25, 1), // own +10; reaped 102 (450), 103 (90), 104 (25)
		ps(101, pm, 230, 0, 10),
		ps(103, pm, 5, 0, 20),   // new process with an old PID: all 5 count
		ps(105, pm, 40, 0, 21),  // born and still running: 40
		ps(200, 1, 9000, 0, 13), // not ours
	}, pm)
	require.NoError(t, err)
	// own 10 + 101's 30 + 102's 50 + 103 (old) 20 + 104 (born and gone) 25
	// + 103 (new) 5 + 105's 40.
	require.Equal(t, uint64(10+30+50+20+25+5+40), treeCPU(before, after))
	require.Equal(t, 1500*time.Millisecond, ticks(150))

	_, err = snapshotTree([]procStat{ps(1, 0, 0, 0, 1)}, pm)
	require.ErrorContains(t, err, "gone")

	// A process without children is its own CPU.
	lone := func(cpu uint64) treeSnapshot {
		s, err := snapshotTree([]procStat{ps(7, 1, cpu, 0, 3)}, 7)
		require.NoError(t, err)
		return s
	}
	require.Equal(t, uint64(25), treeCPU(lone(100), lone(125)))
}

func TestReadProcs(t *testing.T) {
	dir := t.TempDir()
	for pid, line := range map[string]string{
		"1":   statLine(1, "init", 0, 5, 5, 0, 0, 1),
		"300": statLine(300, "hookd", 1, 40, 2, 0, 0, 50),
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pid), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, pid, "stat"), []byte(line), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "self"), 0o755)) // not a PID: skipped
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "400"), 0o755))  // exited meanwhile: skipped
	all, err := readProcs(dir)
	require.NoError(t, err)
	require.Len(t, all, 2)

	live, err := readProcs("/proc")
	require.NoError(t, err)
	_, err = snapshotTree(live, os.Getpid())
	require.NoError(t, err, "this process is in /proc")
}

func TestStatusKB(t *testing.T) {
	raw := []byte("Name:\thookd\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n")
	require.Equal(t, int64(102400), statusKB(raw, "VmRSS"))
	require.Equal(t, int64(0), statusKB(raw, "VmSwap"))
	require.Positive(t, procRSSMB(os.Getpid()))
	require.Zero(t, procRSSMB(-1))
}

func TestTemporalDatabaseURL(t *testing.T) {
	got, err := temporalDatabaseURL("postgres://hookd@127.0.0.1:24321/postgres?sslmode=disable")
	require.NoError(t, err)
	require.Equal(t, "postgres://hookd@127.0.0.1:24321/temporal?sslmode=disable", got)
}

func TestParseWorkerCounts(t *testing.T) {
	got, err := ParseWorkerCounts("1,2")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, got)
	got, err = ParseWorkerCounts(" 4 ")
	require.NoError(t, err)
	require.Equal(t, []int{4}, got)
	for _, bad := range []string{"", "0", "1,,2", "x", "-1", "17", "2,2"} {
		_, err := ParseWorkerCounts(bad)
		require.Error(t, err, "%q", bad)
	}
}

func TestExternalConfigNeedsTheBinary(t *testing.T) {
	_, err := ExternalConfig{Hookd: filepath.Join(t.TempDir(), "hookd")}.withDefaults()
	require.ErrorContains(t, err, "make build")
	notExec := filepath.Join(t.TempDir(), "hookd")
	require.NoError(t, os.WriteFile(notExec, []byte("x"), 0o644))
	_, err = ExternalConfig{Hookd: notExec}.withDefaults()
	require.ErrorContains(t, err, "not an executable")
	c, err := ExternalConfig{Hookd: "/bin/sh"}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, c.Workers)
	require.Equal(t, Defaults.N, c.N)
}

func TestChildStop(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	t.Setenv("HOOKD_SECRET_OF_PARENT", "x")
	// Exits cleanly on SIGTERM, after saying it runs and what it sees.
	c, err := startChild(dir, "/bin/sh", "clean", []string{"FOO=bar"}, "-c",
		`trap 'exit 0' TERM; echo "env ${FOO}${HOOKD_SECRET_OF_PARENT} is running"; while :; do sleep 0.05; done`)
	require.NoError(t, err)
	require.NoError(t, c.waitLine(ctx, "env bar is running", 5*time.Second), "own env set, HOOKD_* of the parent dropped")
	require.NoError(t, c.stop(5*time.Second))

	// Ignores SIGTERM: killed after the grace.
	c, err = startChild(dir, "/bin/sh", "stubborn", nil, "-c", `trap '' TERM; echo up; while :; do sleep 0.05; done`)
	require.NoError(t, err)
	require.NoError(t, c.waitLine(ctx, "up", 5*time.Second))
	began := time.Now()
	require.ErrorContains(t, c.stop(300*time.Millisecond), "killed")
	require.Less(t, time.Since(began), 3*time.Second)

	// Exits before it is running: the error carries its log.
	c, err = startChild(dir, "/bin/sh", "early", nil, "-c", `echo broken >&2; exit 3`)
	require.NoError(t, err)
	err = c.waitLine(ctx, "is running", 5*time.Second)
	require.ErrorContains(t, err, "exited before")
	require.ErrorContains(t, err, "broken")
}

func TestReportExternal(t *testing.T) {
	sat := LoadResult{N: 2, Events: 2, Rate: 50, EndToEnd: dist{10 * time.Millisecond, 20 * time.Millisecond},
		Ingest: dist{time.Millisecond, 2 * time.Millisecond}, Usage: usage{Wall: time.Second}}
	run := func(workers int, rss []float64) ExternalRun {
		return ExternalRun{Workers: workers, LoadBefore: "0.50 0.40 0.30", LoadAfter: "1.90 0.80 0.40", Saturation: sat, Processes: []ProcessUsage{
			{Kind: kindWorker, CPU: 400 * time.Millisecond, RSSMB: rss},
			{Kind: kindAPI, CPU: 100 * time.Millisecond, RSSMB: []float64{80}},
			{Kind: kindTemporal, CPU: 600 * time.Millisecond, RSSMB: []float64{300}},
			{Kind: kindPostgres, CPU: 200 * time.Millisecond},
			{Kind: kindBench, CPU: 100 * time.Millisecond},
		}}
	}
	var out bytes.Buffer
	reportExternal(&out, ExternalResult{Config: ExternalConfig{N: 2, Clients: 64}, Machine: "test machine", LoadBefore: "0.5 0.4 0.3", LoadAfter: "2 1 0.5",
		Runs: []ExternalRun{run(1, []float64{120}), run(2, []float64{110, 105.4})}})
	s := out.String()
	require.Contains(t, s, "| measure ")
	require.Contains(t, s, "| 1 worker ")
	require.Contains(t, s, "| 2 workers ")
	require.Contains(t, s, "200.0 ms (40%)", "worker CPU: 400 ms over 2 deliveries in 1 s")
	require.Contains(t, s, "700.0 ms (140%)", "total")
	require.Contains(t, s, "110 + 105 MB")
	require.Contains(t, s, "0.50 0.40 0.30 / 1.90 0.80 0.40")
	require.Contains(t, s, "load average before: 0.5 0.4 0.3, after: 2 1 0.5")
	require.Contains(t, s, "reaped")
	require.NotContains(t, s, kindServe)
	require.Contains(t, s, "`hookd dev --only-temporal`, SQLite")

	out.Reset()
	reportExternal(&out, ExternalResult{Config: ExternalConfig{N: 2, Clients: 64, TemporalPostgres: true}, Runs: []ExternalRun{run(1, []float64{120})}})
	require.Contains(t, out.String(), "Temporal's persistence in databases temporal and temporal_visibility")
	require.NotContains(t, out.String(), "SQLite")

	serve := run(2, []float64{150, 160})
	serve.Serve = true
	serve.Processes = append([]ProcessUsage{{Kind: kindServe, CPU: time.Second, RSSMB: []float64{150, 160}}}, serve.Processes[2:]...)
	out.Reset()
	reportExternal(&out, ExternalResult{Config: ExternalConfig{N: 2, Clients: 64, Serve: true}, Runs: []ExternalRun{serve}})
	s = out.String()
	require.Contains(t, s, "| 2 serve processes ")
	require.Contains(t, s, "CPU ms per delivery (CPU%): hookd serve")
	require.Contains(t, s, "500.0 ms (100%)")
	require.NotContains(t, s, kindWorker, "no worker rows without workers")
	require.NotContains(t, s, "hookd api ")
}

func TestPGByDatabase(t *testing.T) {
	dir := t.TempDir()
	title := map[int]string{
		101: "postgres: hookd temporal 127.0.0.1(40001) idle",
		102: "postgres: hookd temporal_visibility 127.0.0.1(40002) idle in transaction",
		103: "postgres: hookd postgres 127.0.0.1(40003) idle",
		104: "postgres: checkpointer ",
		105: "postgres: hookd temporal [local] idle",
	}
	for pid, s := range title {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, fmt.Sprint(pid)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprint(pid), "cmdline"), []byte(s+"\x00"), 0o644))
	}
	const pm = 100
	ps := func(pid int, cpu, reaped, start uint64) procStat {
		return procStat{PID: pid, PPID: pm, UTime: cpu, CUTime: reaped, Start: start}
	}
	before, err := snapshotTree([]procStat{{PID: pm, PPID: 1, UTime: 10}, ps(101, 100, 0, 5), ps(102, 50, 0, 6), ps(104, 30, 0, 7)}, pm)
	require.NoError(t, err)
	after, err := snapshotTree([]procStat{{PID: pm, PPID: 1, UTime: 12, CUTime: 9}, // own +2, an exited backend's 9
		ps(101, 160, 0, 5), ps(102, 70, 0, 6), ps(103, 8, 0, 8), ps(104, 31, 0, 7), ps(105, 4, 0, 9)}, pm)
	require.NoError(t, err)
	got := pgByDatabase(dir, before, after)
	require.Equal(t, map[string]time.Duration{
		"temporal":            ticks(60 + 4),
		"temporal_visibility": ticks(20),
		"postgres":            ticks(8),
		pgOther:               ticks(2 + 9 + 1), // postmaster, the exited backend, the checkpointer
	}, got)
	var sum time.Duration
	for _, d := range got {
		sum += d
	}
	require.Equal(t, ticks(treeCPU(before, after)), sum, "the parts add up to the tree")
	require.Equal(t, "temporal 320.0 ms, temporal_visibility 100.0 ms, postgres 40.0 ms, "+pgOther+" 60.0 ms", formatByDatabase(got, 2))
	require.Equal(t, "-", formatByDatabase(nil, 2))
}

// PostgreSQL's counts are split per delivery by database, most
// transactions first; the reading connection's own transaction and idle
// databases are left out.
func TestPGCountsPerDelivery(t *testing.T) {
	before := map[string]pgCounts{"temporal": {Xacts: 100, Rows: 50}, "postgres": {Xacts: 10, Rows: 5}, "template1": {Xacts: 3}}
	after := map[string]pgCounts{"temporal": {Xacts: 420, Rows: 850}, "postgres": {Xacts: 71, Rows: 45}, "template1": {Xacts: 3}}
	got := pgCountsBetween(before, after, "postgres")
	if want := (map[string]pgCounts{"temporal": {Xacts: 320, Rows: 800}, "postgres": {Xacts: 60, Rows: 40}}); !maps.Equal(got, want) {
		t.Fatalf("between: got %v, want %v", got, want)
	}
	if s := formatCounts(got, 20); s != "temporal 16.0 / 40.0, postgres 3.0 / 2.0" {
		t.Fatalf("format: %q", s)
	}
	if s := formatCounts(nil, 20); s != "-" {
		t.Fatalf("format of none: %q", s)
	}
}
