// Package apiclient is a small typed Go client for hookd's HTTP API:
// tenants, endpoints, events, deliveries and dead letters. It imports only the
// standard library, so any Go program can call hookd without pulling in
// Temporal.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// maxResponse caps the bytes read from one response body.
const maxResponse = 16 << 20

// Client calls one hookd API with one API key. Its zero value is not
// usable; create it with New.
type Client struct {
	base      *url.URL
	apiKey    string
	http      *http.Client
	userAgent string
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the Client send requests through hc.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a Client for the API at baseURL (such as
// "http://127.0.0.1:8080") that authenticates with apiKey: the platform's
// API key, or a tenant token ("htk_...") that sees only its tenant.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("API URL %q must be an absolute http or https URL", baseURL)
	}
	if apiKey == "" {
		return nil, errors.New("an API key is required")
	}
	c := &Client{base: u, apiKey: apiKey, http: &http.Client{Timeout: 30 * time.Second}, userAgent: "hookd-apiclient"}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Raw holds a response exactly as the API sent it. Every response type
// embeds it, so callers can print or forward the API's own JSON.
type Raw struct {
	body json.RawMessage
}

// JSON returns the response body as the API sent it.
func (r Raw) JSON() json.RawMessage { return r.body }

func (r *Raw) setRaw(b []byte) { r.body = b }

// Error is an error answer from the API: the HTTP status, the API's error
// code, the request field at fault (if any), its message, the limit a
// 409 or 429 is about (if any); Details say where and why a payload or
// example fails its event type's schema.
type Error struct {
	StatusCode int `json:"-"`
	wire.ErrorDetail
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Code != "" {
		return fmt.Sprintf("%s (HTTP %d %s)", msg, e.StatusCode, e.Code)
	}
	return fmt.Sprintf("%s (HTTP %d)", msg, e.StatusCode)
}

// IsNotFound reports whether err is the API's 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// call sends one request with an optional JSON body and decodes the JSON
// answer into a new T, keeping the raw bytes when T embeds Raw.
func call[T any](ctx context.Context, c *Client, method, path string, query url.Values, in any) (*T, error) {
	out, _, err := callStatus[T](ctx, c, method, path, query, in)
	return out, err
}

// callStatus is call that also returns the answer's status.
func callStatus[T any](ctx context.Context, c *Client, method, path string, query url.Values, in any) (*T, int, error) {
	status, body, err := c.send(ctx, method, path, query, in)
	if err != nil {
		return nil, 0, err
	}
	out := new(T)
	if err := json.Unmarshal(body, out); err != nil {
		return nil, 0, fmt.Errorf("%s %s: decode response: %w", method, path, err)
	}
	if r, ok := any(out).(interface{ setRaw([]byte) }); ok {
		r.setRaw(body)
	}
	return out, status, nil
}

// do sends one request and returns the body of a 2xx answer, or an *Error.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in any) ([]byte, error) {
	_, body, err := c.send(ctx, method, path, query, in)
	return body, err
}

// send is do that also returns the status of a 2xx answer.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, in any) (int, []byte, error) {
	target := c.base.String() + path // path segments are escaped by the caller
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var reqBody io.Reader
	if in != nil {
		// Without HTML escaping: a payload's "<", ">" and "&" reach hookd
		// as given, so the same event sent by this client and by curl is
		// the same bytes (json.Marshal would send \u003c).
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(in); err != nil {
			return 0, nil, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		reqBody = bytes.NewReader(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reqBody)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err // *url.Error already names the method and URL
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: read response: %w", method, path, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, body, nil
	}
	return 0, nil, errorOf(resp.StatusCode, body)
}

// errorOf reads an API error answer; a body that is not the API's error
// JSON (a proxy's page, say) becomes the message, shortened.
func errorOf(status int, body []byte) *Error {
	var wrapped wire.ErrorBody
	if json.Unmarshal(body, &wrapped) == nil && wrapped.Error.Message != "" {
		return &Error{StatusCode: status, ErrorDetail: wrapped.Error}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &Error{StatusCode: status, ErrorDetail: wire.ErrorDetail{Message: msg}}
}

// Page selects one page of a list: the cursor a previous page returned
// (empty for the first) and the page size (zero for the API's default).
type Page struct {
	Cursor string
	Limit  int
}

func (p Page) values() url.Values {
	v := url.Values{}
	if p.Cursor != "" {
		v.Set("cursor", p.Cursor)
	}
	if p.Limit > 0 {
		v.Set("limit", fmt.Sprint(p.Limit))
	}
	return v
}
