package embedded

import (
	"net"
	"strconv"
	"testing"
)

// TestFreeAddrBelowTheEphemeralRange: FreeAddr hands out loopback ports
// below the kernel's ephemeral range, which outgoing connections and :0
// listeners never take, and nobody listens on them.
func TestFreeAddrBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	for range 20 {
		addr, err := FreeAddr("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(port)
		if host != "127.0.0.1" || p >= low || p < 1024 {
			t.Fatalf("FreeAddr = %s, want a loopback port below %d", addr, low)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		l.Close()
	}
}
