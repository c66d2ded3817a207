package freeport

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestAddrBelowTheEphemeralRangeAndOnce: Addr hands out loopback ports
// below the kernel's ephemeral range that nobody listens on, and never the
// same one twice (500 random draws from 20,000 ports would almost surely
// repeat one).
func TestAddrBelowTheEphemeralRangeAndOnce(t *testing.T) {
	low := ephemeralLow()
	seen := map[string]bool{}
	for range 500 {
		addr, err := Addr("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(port)
		if host != "127.0.0.1" || p >= low || p < 1024 {
			t.Fatalf("Addr = %s, want a loopback port below %d", addr, low)
		}
		if seen[addr] {
			t.Fatalf("Addr handed out %s twice", addr)
		}
		seen[addr] = true
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		l.Close()
	}
}

const childEnv = "FREEPORT_TEST_CHILD"

// TestPortHeldByAnotherProcess: a port another live process has drawn is
// not handed out here, though nothing listens on it.
func TestPortHeldByAnotherProcess(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		child()
		return
	}
	if lockFile() == nil {
		t.Skip("no shared lock file to use")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPortHeldByAnotherProcess$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	var held []int
	for len(held) < 50 && lines.Scan() {
		if p, err := strconv.Atoi(lines.Text()); err == nil {
			held = append(held, p)
		}
	}
	if len(held) < 50 {
		t.Fatalf("child drew %d ports, want 50", len(held))
	}
	for _, p := range held {
		if reserve(p) {
			t.Fatalf("port %d, held by the child, was reserved here too", p)
		}
	}
}

// child draws 50 ports, prints them, and holds them until stdin closes.
func child() {
	for range 50 {
		p, err := Port("127.0.0.1")
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(p) + "\n")
	}
	bufio.NewReader(os.Stdin).ReadByte()
	os.Exit(0)
}
