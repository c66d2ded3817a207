package reference

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hookd/hookd/signing"
)

// DropAlways as Faults.DropAfterCommit drops the connection after every
// commit.
const DropAlways = -1

// Faults are the failures the receiver injects. The zero value injects
// none. Counted faults (FailFirst, DropAfterCommit) count from New or from
// the last SetFaults.
type Faults struct {
	// FailFirst answers the first N requests with FailStatus before
	// verifying or recording anything.
	FailFirst int `json:"fail_first"`
	// FailStatus is the status of FailFirst failures; default 503.
	FailStatus int `json:"fail_status"`
	// RetryAfter is sent as the Retry-After header with every injected
	// failure (FailFirst and AlwaysFail), e.g. "2" or an HTTP date.
	RetryAfter string `json:"retry_after"`
	// Delay holds every webhook request this long before handling it.
	Delay time.Duration `json:"delay"`
	// AlwaysFail, if not zero, answers every request with this status,
	// recording nothing.
	AlwaysFail int `json:"always_fail"`
	// DropAfterCommit closes the connection without an answer after the
	// inbox transaction committed a new delivery (the lost-ACK case): for
	// the first N new deliveries, or for all of them with DropAlways.
	// Duplicates are answered, so the sender's retry succeeds.
	DropAfterCommit int `json:"drop_after_commit"`
}

func (f Faults) validate() error {
	for _, s := range []int{f.FailStatus, f.AlwaysFail} {
		if s != 0 && (s < 100 || s > 599) {
			return fmt.Errorf("invalid fault status %d", s)
		}
	}
	if f.FailFirst < 0 || f.Delay < 0 || f.DropAfterCommit < DropAlways {
		return errors.New("negative fault count or delay")
	}
	return nil
}

func (f Faults) withDefaults() Faults {
	if f.FailStatus == 0 {
		f.FailStatus = http.StatusServiceUnavailable
	}
	return f
}

// Config configures a reference receiver. Secrets is required.
type Config struct {
	// Addr is the listen address for Run, e.g. "127.0.0.1:9090".
	Addr string
	// DBPath is the SQLite file; empty means an in-memory database that is
	// lost on exit.
	DBPath string
	// Secrets are the "whsec_" secrets accepted (several during rotation).
	Secrets []string
	// Signing is the endpoint's signing profile the deliveries are
	// verified under; the zero Profile is Standard Webhooks.
	Signing signing.Profile
	// MaxBodyBytes caps a delivery body; zero means the kit's default (1 MiB).
	MaxBodyBytes int64
	// Logger receives the receiver's log; nil means slog.Default.
	Logger *slog.Logger
	// Faults are the initial fault settings; see SetFaults.
	Faults
}
