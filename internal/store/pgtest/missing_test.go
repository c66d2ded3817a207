package pgtest

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB whose Fatalf and Skipf record the message and
// end the goroutine, as the real ones do.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func startWithoutBinaries(t *testing.T) *recorder {
	t.Setenv("PATH", t.TempDir())
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		start(r, "/nonexistent/postgresql/*/bin")
	}()
	<-done
	return r
}

func TestMissingBinariesFailNamingThePackage(t *testing.T) {
	t.Setenv(SkipEnv, "")
	r := startWithoutBinaries(t)
	require.Contains(t, r.fatal, "apt-get install postgresql")
	require.Contains(t, r.fatal, SkipEnv)
	require.Empty(t, r.skip)
}

func TestMissingBinariesSkipWhenAsked(t *testing.T) {
	t.Setenv(SkipEnv, "1")
	r := startWithoutBinaries(t)
	require.Empty(t, r.fatal)
	require.Contains(t, r.skip, SkipEnv)
}
