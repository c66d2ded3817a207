package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procStat is what the external bench reads of one process's
// /proc/PID/stat: who it is, its parent, and its CPU time in clock ticks.
type procStat struct {
	PID, PPID int
	// Start is the process's start time in ticks since boot: with the
	// PID it names one process, even if the PID is reused.
	Start uint64
	// UTime and STime are the process's own CPU; CUTime and CSTime its
	// waited-for children's, added when the parent reaps them.
	UTime, STime, CUTime, CSTime uint64
}

// parseStat parses a /proc/PID/stat line. The command name (field 2) may
// hold spaces and parentheses, so fields are counted after its last ')'.
func parseStat(raw []byte) (procStat, error) {
	var s procStat
	open := bytes.IndexByte(raw, '(')
	end := bytes.LastIndexByte(raw, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("proc stat: no command name in %.80q", raw)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw[:open])))
	if err != nil {
		return s, fmt.Errorf("proc stat: pid: %w", err)
	}
	f := strings.Fields(string(raw[end+1:]))
	// f[0] is field 3 (state), so field k of the line is f[k-3]: ppid 4,
	// utime 14, stime 15, cutime 16, cstime 17, starttime 22.
	if len(f) < 20 {
		return s, fmt.Errorf("proc stat: %d fields after the command name, want >= 20", len(f))
	}
	s.PID = pid
	nums := []struct {
		field int
		dst   *uint64
	}{{14, &s.UTime}, {15, &s.STime}, {16, &s.CUTime}, {17, &s.CSTime}, {22, &s.Start}}
	for _, n := range nums {
		// cutime and cstime are signed in the kernel's format; they are
		// never negative in practice.
		v, err := strconv.ParseInt(f[n.field-3], 10, 64)
		if err != nil || v < 0 {
			return s, fmt.Errorf("proc stat: field %d %q", n.field, f[n.field-3])
		}
		*n.dst = uint64(v)
	}
	if s.PPID, err = strconv.Atoi(f[4-3]); err != nil {
		return s, fmt.Errorf("proc stat: ppid: %w", err)
	}
	return s, nil
}

// procKey names one process: a PID and when it started.
type procKey struct {
	pid   int
	start uint64
}

// treeSnapshot is a process and its direct children at one instant.
type treeSnapshot struct {
	root     procStat
	children map[procKey]procStat
}

// snapshotTree picks root and the processes whose parent is root out of
// all. The root must be among them.
func snapshotTree(all []procStat, root int) (treeSnapshot, error) {
	t := treeSnapshot{children: map[procKey]procStat{}}
	found := false
	for _, s := range all {
		switch {
		case s.PID == root:
			t.root, found = s, true
		case s.PPID == root:
			t.children[procKey{s.PID, s.Start}] = s
		}
	}
	if !found {
		return t, fmt.Errorf("process %d is gone", root)
	}
	return t, nil
}

// treeCPU is the CPU time, in clock ticks, that a process and its direct
// children used between two snapshots: the root's own, each child's since
// the first snapshot (all of it for a child born in between), and the
// children that exited in between through the root's reaped-children
// counters, less what they had used before the first snapshot. Children
// that exited without being reaped yet, and grandchildren, are missed.
func treeCPU(before, after treeSnapshot) uint64 {
	own := func(s procStat) uint64 { return s.UTime + s.STime }
	reaped := func(s procStat) uint64 { return s.CUTime + s.CSTime }
	total := int64(own(after.root)-own(before.root)) + int64(reaped(after.root)-reaped(before.root))
	for k, a := range after.children {
		total += int64(own(a))
		if b, ok := before.children[k]; ok {
			total -= int64(own(b))
		}
	}
	for k, b := range before.children {
		if _, ok := after.children[k]; !ok {
			total -= int64(own(b)) // exited: its whole life is in reaped
		}
	}
	return uint64(max(total, 0))
}

// ticks converts clock ticks to a duration.
func ticks(n uint64) time.Duration { return time.Duration(n) * time.Second / clockTick }

// readProcs reads /proc/PID/stat of every process under procRoot
// ("/proc"), skipping those that exit while it reads.
func readProcs(procRoot string) ([]procStat, error) {
	dirs, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", procRoot, err)
	}
	var out []procStat
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(procRoot, d.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		s, err := parseStat(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// procRSSMB is VmRSS of a process in MB (0 if it is gone).
func procRSSMB(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return mb(statusKB(raw, "VmRSS"))
}

// statusKB returns a field of a /proc/PID/status file in KiB.
func statusKB(raw []byte, field string) int64 {
	for line := range strings.SplitSeq(string(raw), "\n") {
		v, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n
	}
	return 0
}
