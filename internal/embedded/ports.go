package embedded

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreeAddr returns an address on host whose port no one listens on, for
// a server that binds its own (the embedded services, a child process).
// The port is closed before it is handed over, so it is drawn from below
// the kernel's ephemeral range: a port from :0 is one the kernel also
// hands to outgoing connections and other :0 listeners, which took it
// meanwhile often enough to fail a test suite that starts dozens of
// servers; below the range only another such draw can.
func FreeAddr(host string) (string, error) {
	low := ephemeralLow()
	for range 100 {
		port := low - 1 - rand.IntN(min(low-1024, 20000))
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		addr := l.Addr().String()
		l.Close()
		return addr, nil
	}
	return "", fmt.Errorf("find a free port: none below %d in 100 draws", low)
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// default where it cannot be read).
func ephemeralLow() int {
	const linuxDefault = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return linuxDefault
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return linuxDefault
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= 2048 {
		return linuxDefault
	}
	return low
}
