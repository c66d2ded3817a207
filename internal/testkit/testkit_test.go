package testkit

import (
	"net"
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
