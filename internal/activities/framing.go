package activities

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
)

// errFramingInDoubt refuses a request on a connection whose last response
// was followed by bytes it had no room for. Nothing is written, so the
// transport retries the request on a fresh connection.
var errFramingInDoubt = errors.New("connection not reused: the last response's framing is in doubt")

// framingConn watches the HTTP/1.1 responses read from a connection for
// the kind whose end Go cannot vouch for: a 204 or 304, which have no body
// by definition, followed by bytes anyway (a receiver that sent a body).
// Those bytes are not handed on: reads end at the response's header, so
// the transport closes the connection quietly instead of reading them as
// the next response or logging them as unsolicited, and a request written
// after it fails before a byte is sent. A connection after a clean answer
// is reused as usual. Response bodies are not parsed: the transport frames
// them by Content-Length or chunks.
type framingConn struct {
	net.Conn

	mu       sync.Mutex
	state    framingState
	line     []byte // the status line so far
	code     int    // the status code of the response being read
	newlines int    // consecutive line ends within the header
	doubt    bool   // stray bytes followed a bodiless response
}

type framingState int

const (
	framingIdle   framingState = iota // after a response with a body, or before any request
	framingStatus                     // reading a status line
	framingHeader                     // reading a header
	framingNoBody                     // after a 204 or 304: any byte is stray
)

func (c *framingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.doubt {
		c.mu.Unlock()
		return 0, errFramingInDoubt
	}
	c.state, c.line, c.newlines = framingStatus, c.line[:0], 0
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *framingConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	doubt := c.doubt
	c.mu.Unlock()
	if doubt {
		return 0, io.EOF
	}
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := c.scan(p[:n])
	if keep == n {
		return n, err
	}
	c.doubt = true
	if keep == 0 {
		return 0, io.EOF
	}
	return keep, nil
}

// scan follows the response bytes b and returns how many of them belong to
// responses; the rest are stray.
func (c *framingConn) scan(b []byte) int {
	for i, x := range b {
		switch c.state {
		case framingNoBody:
			return i
		case framingIdle:
			return len(b)
		case framingStatus:
			if x != '\n' {
				if len(c.line) < 16 {
					c.line = append(c.line, x)
				}
				continue
			}
			c.code, c.newlines, c.state = statusCode(c.line), 1, framingHeader
			c.line = c.line[:0]
		case framingHeader:
			switch x {
			case '\r':
				continue
			case '\n':
				c.newlines++
			default:
				c.newlines = 0
			}
			if c.newlines < 2 {
				continue
			}
			switch {
			case c.code >= 100 && c.code < 200 && c.code != 101:
				c.state = framingStatus // an interim answer: the final one follows
			case c.code == 204 || c.code == 304:
				c.state = framingNoBody
			default:
				c.state = framingIdle
			}
		}
	}
	return len(b)
}

// statusCode reads the code of a status line such as "HTTP/1.1 304 Not
// Modified"; 0 if it is not one.
func statusCode(line []byte) int {
	if !bytes.HasPrefix(line, []byte("HTTP/")) || len(line) < 12 || line[8] != ' ' {
		return 0
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0
	}
	return code
}
