package app

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// The garbage collector's setting for hookd dev (docs/performance.md,
// round 2): collect when the heap has grown by 400% over what survived
// the last collection, but keep the process near a soft limit of 640 MiB,
// past which the runtime collects sooner. hookd dev holds the Temporal
// server, the worker and the API in one heap; Go's default (GOGC=100, no
// limit) spent about a tenth of its CPU collecting at saturation.
const (
	devGCPercent   = 400
	devMemoryLimit = 640 << 20
)

// tuneGC applies the dev setting unless GOGC or GOMEMLIMIT is set in the
// environment: then the runtime has already applied the user's choice.
// It reports whether it changed anything.
func tuneGC(log *slog.Logger) bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(devGCPercent)
	debug.SetMemoryLimit(devMemoryLimit)
	log.Debug("garbage collector tuned", "gogc", devGCPercent, "memory_limit_mib", devMemoryLimit>>20)
	return true
}
