package testkit

import (
	"strings"
	"testing"
	"time"
)

// A Proc is awaited by what it prints, stopped with SIGTERM, killed, and
// started again with the same arguments, its output kept across starts;
// the child never sees the test's HOOKD_* variables.
func TestProc(t *testing.T) {
	t.Setenv("HOOKD_LEAK", "parent")
	p := StartProc(t, "sh", "/bin/sh", []string{"GIVEN=child"}, "-c", `echo "up $GIVEN ${HOOKD_LEAK:-none}"; trap 'exit 3' TERM; while :; do sleep 0.05; done`)
	p.AwaitPrinted("up child none", 10*time.Second)
	err, inTime := p.Stop(10 * time.Second)
	if !inTime || err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("stop: %v, in time %v", err, inTime)
	}
	p.Start()
	p.Await(10*time.Second, "a second start", func() bool { return strings.Count(p.Output(), "up child none") == 2 })
	p.Kill9()
	if err, _ := p.Stop(time.Second); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("after Kill9: %v", err)
	}
}
