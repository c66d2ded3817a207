package testkit

import (
	"net"
	"os"
	"testing"
)

func TestFreeAddrCanBeListenedOn(t *testing.T) {
	addr := FreeAddr(t)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on the free address %s: %v", addr, err)
	}
	l.Close()
}

func TestHookdBinaryIsBuiltOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hookd")
	}
	a, err := HookdBinary()
	if err != nil {
		t.Fatal(err)
	}
	b, err := HookdBinary()
	if err != nil || a != b {
		t.Fatalf("second call: %q, %v; want %q", b, err, a)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s is not an executable: %v", a, err)
	}
}
