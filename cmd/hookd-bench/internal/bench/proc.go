package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of utime and stime in /proc/self/stat; it
// is 100 on every Linux build that matters.
const clockTick = 100

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// The command name may hold spaces; fields are counted after its ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0
	}
	// After ')': state is field 3 of the line, so utime (14) and stime
	// (15) are at 11 and 12 here.
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTick
}

// memKB returns a field of /proc/self/status in KiB (VmHWM, VmRSS).
func memKB(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n
	}
	return 0
}

// resetPeak returns freed memory to the OS and resets VmHWM to the current
// RSS (writing 5 to clear_refs), so a phase's peak is its own.
func resetPeak() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// usage is the process's CPU and memory over one phase.
type usage struct {
	Wall   time.Duration
	CPU    time.Duration
	PeakMB float64 // VmHWM since the phase began
}

// CPUPercent is CPU time over wall time; 200% is both of two cores.
func (u usage) CPUPercent() float64 {
	if u.Wall <= 0 {
		return 0
	}
	return 100 * float64(u.CPU) / float64(u.Wall)
}

// meter measures one phase's usage.
type meter struct {
	start time.Time
	cpu   time.Duration
}

func startMeter() meter {
	resetPeak()
	return meter{start: time.Now(), cpu: cpuTime()}
}

func (m meter) stop() usage {
	return usage{Wall: time.Since(m.start), CPU: cpuTime() - m.cpu, PeakMB: mb(memKB("VmHWM"))}
}

func mb(kb int64) float64 { return float64(kb) / 1024 }

func (u usage) String() string {
	return fmt.Sprintf("cpu %.0f%% peak %.0f MB", u.CPUPercent(), u.PeakMB)
}
