package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// loadAvg is the 1, 5 and 15 minute load averages: other work on the
// machine skews every figure, so the report shows it.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// machine describes the CPU, core count, memory and Go version.
func machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "model name"); ok {
				model = strings.TrimSpace(strings.TrimLeft(v, " \t:"))
				break
			}
		}
		_ = f.Close()
	}
	total := "?"
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		if sc.Scan() {
			var kb int64
			_, _ = fmt.Sscanf(strings.TrimPrefix(sc.Text(), "MemTotal:"), "%d", &kb)
			total = fmt.Sprintf("%.0f GB", float64(kb)/(1<<20))
		}
		_ = f.Close()
	}
	return fmt.Sprintf("%s, %d cores, %s RAM, %s %s/%s", model, runtime.NumCPU(), total, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
