// Package freeport hands out TCP ports that no one listens on, for servers
// that bind their own (the embedded Temporal services, a child process, a
// test PostgreSQL). A port is closed before it is handed over, so until
// its server binds it anyone could take it. Two rules keep that from
// happening in practice:
//
//   - Ports are drawn from below the kernel's ephemeral range. A port from
//     :0 is one the kernel also hands to outgoing connections and other :0
//     listeners, which took it meanwhile often enough to fail a suite that
//     starts dozens of servers; below the range only another draw can.
//   - A port is handed out once per machine while its process lives: once
//     in the process (a set), and once among processes (a byte-range lock
//     on a shared file, which the kernel releases when the process exits).
//     Parallel test binaries, and the child processes they run, each draw
//     ports for servers that bind seconds later.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Addr returns host:port for a port on host that no one listens on and
// that no other draw on this machine has handed out (see the package
// comment).
func Addr(host string) (string, error) {
	low := ephemeralLow()
	span := min(low-1024, 20000)
	for range 200 {
		port := low - 1 - rand.IntN(span)
		if !reserve(port) {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		addr := l.Addr().String()
		if err := l.Close(); err != nil {
			return "", fmt.Errorf("free port %d: close probe: %w", port, err)
		}
		return addr, nil
	}
	return "", fmt.Errorf("find a free port: none below %d in 200 draws", low)
}

// Port is Addr's port.
func Port(host string) (int, error) {
	addr, err := Addr(host)
	if err != nil {
		return 0, err
	}
	_, p, _ := net.SplitHostPort(addr)
	return strconv.Atoi(p)
}

// taken is the set of ports this process has handed out or found held by
// another process; a port in it is never drawn again here.
var taken = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// reserve marks port as this process's, or reports false when this or
// another process already has it.
func reserve(port int) bool {
	taken.Lock()
	defer taken.Unlock()
	if taken.ports[port] {
		return false
	}
	taken.ports[port] = true
	return lockAcrossProcesses(port)
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
