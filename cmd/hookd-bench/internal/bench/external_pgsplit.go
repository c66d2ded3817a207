package bench

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pgOther is where PostgreSQL CPU that no live backend's database
// accounts for goes: the postmaster, background processes (checkpointer,
// WAL writer, autovacuum launcher) and backends that exited during the
// phase.
const pgOther = "other (background, exited backends)"

// pgByDatabase splits the PostgreSQL tree's CPU between snapshots by the
// database of each backend, read from its process title in
// procRoot/PID/cmdline ("postgres: USER DATABASE HOST(PORT) STATE");
// whatever the backends do not account for goes to pgOther, so the parts
// add up to treeCPU.
func pgByDatabase(procRoot string, before, after treeSnapshot) map[string]time.Duration {
	total := treeCPU(before, after)
	byDB := map[string]uint64{}
	var live uint64
	for k, a := range after.children {
		db := backendDatabase(procRoot, k.pid)
		if db == "" {
			continue
		}
		d := a.UTime + a.STime
		if b, ok := before.children[k]; ok {
			d -= min(d, b.UTime+b.STime)
		}
		byDB[db] += d
		live += d
	}
	out := map[string]time.Duration{}
	for db, t := range byDB {
		out[db] = ticks(t)
	}
	if total > live {
		out[pgOther] = ticks(total - live)
	}
	return out
}

// backendDatabase is the database of the backend pid, or "" when pid is
// no client backend (or is gone).
func backendDatabase(procRoot string, pid int) string {
	raw, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	f := strings.Fields(strings.ReplaceAll(string(raw), "\x00", " "))
	if len(f) < 4 || f[0] != "postgres:" || (!strings.Contains(f[3], "(") && f[3] != "[local]") {
		return ""
	}
	return f[2]
}

// formatByDatabase lists a split as "temporal 9.1 ms, postgres 0.9 ms,
// ..." per delivery, largest first, pgOther last.
func formatByDatabase(split map[string]time.Duration, deliveries int) string {
	if len(split) == 0 || deliveries == 0 {
		return "-"
	}
	names := make([]string, 0, len(split))
	for db := range split {
		if db != pgOther {
			names = append(names, db)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(split[b], split[a]) })
	if _, ok := split[pgOther]; ok {
		names = append(names, pgOther)
	}
	parts := make([]string, len(names))
	for i, db := range names {
		parts[i] = fmt.Sprintf("%s %s", db, ms(split[db]/time.Duration(deliveries)))
	}
	return strings.Join(parts, ", ")
}
