package apiclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serve answers every request with status and body, recording the last.
func serve(t *testing.T, status int, body string) (*Client, *http.Request, *string) {
	t.Helper()
	var seen http.Request
	var seenBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen, seenBody = *r.Clone(context.Background()), string(b)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/", "hk_1", WithUserAgent("test/1"))
	if err != nil {
		t.Fatal(err)
	}
	return c, &seen, &seenBody
}

func TestRequestsCarryKeyAndEscapedPath(t *testing.T) {
	c, req, _ := serve(t, 200, `{"id":"a/b","url":"https://x","enabled":true,"extra":1}`)
	ep, err := c.GetEndpoint(context.Background(), "a/b")
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer hk_1" {
		t.Errorf("Authorization = %q", got)
	}
	if got := req.Header.Get("User-Agent"); got != "test/1" {
		t.Errorf("User-Agent = %q", got)
	}
	if got := req.URL.EscapedPath(); got != "/v1/endpoints/a%2Fb" {
		t.Errorf("path = %q", got)
	}
	if ep.ID != "a/b" || !ep.Enabled || !strings.Contains(string(ep.JSON()), `"extra":1`) {
		t.Errorf("endpoint = %+v", ep)
	}
}

func TestFilterBecomesQueryAndBody(t *testing.T) {
	since := time.Date(2026, 11, 30, 12, 0, 0, 0, time.FixedZone("x", 3600))
	f := DeadLetterFilter{EndpointID: "ep_1", Reasons: []string{"failed", "exhausted"}, Since: since}
	c, req, body := serve(t, 200, `{"data":[],"next_cursor":"n"}`)
	page, err := c.ListDeadLetters(context.Background(), f, Page{Cursor: "c", Limit: 5})
	if err != nil || page.NextCursor != "n" {
		t.Fatal(page, err)
	}
	want := "cursor=c&endpoint_id=ep_1&limit=5&reason=failed%2Cexhausted&since=2026-11-30T11%3A00%3A00Z"
	if req.URL.RawQuery != want {
		t.Errorf("query = %q, want %q", req.URL.RawQuery, want)
	}
	if _, err := c.StartRedrive(context.Background(), BulkRedrive{Filter: f, Rate: 5}); err != nil {
		t.Fatal(err)
	}
	if want := `{"endpoint_id":"ep_1","rate":5,"reasons":["failed","exhausted"],"since":"2026-11-30T11:00:00Z"}`; strings.TrimSpace(*body) != want {
		t.Errorf("body = %s, want %s", *body, want)
	}
}

func TestErrors(t *testing.T) {
	c, _, _ := serve(t, 404, `{"error":{"code":"not_found","message":"no such redrive job"}}`)
	_, err := c.RedriveJob(context.Background(), "j")
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Code != "not_found" || !IsNotFound(err) {
		t.Fatalf("err = %#v", err)
	}
	if err.Error() != "no such redrive job (HTTP 404 not_found)" {
		t.Errorf("Error() = %q", err)
	}
	c, _, _ = serve(t, 503, "")
	if err := c.DeleteEndpoint(context.Background(), "ep"); err == nil || err.Error() != "Service Unavailable (HTTP 503)" {
		t.Errorf("err = %v", err)
	}
	if _, err := New("127.0.0.1:8080", "k"); err == nil {
		t.Error("New accepted a URL without a scheme")
	}
}

func TestEventFilterBecomesQuery(t *testing.T) {
	since := time.Date(2026, 11, 30, 12, 0, 0, 0, time.FixedZone("x", 3600))
	c, req, _ := serve(t, 200, `{"data":[{"event_id":"evt_1","type":"a.b","accepted_at":"2026-11-30T11:00:00Z","deliveries":[{"id":"dlv_1","endpoint_id":"ep_1"}]}],"next_cursor":"n"}`)
	page, err := c.ListEvents(context.Background(), EventFilter{Type: "order.*", EndpointID: "ep_1", Since: since}, Page{Cursor: "c", Limit: 5})
	if err != nil || page.NextCursor != "n" || len(page.Data) != 1 || page.Data[0].Deliveries[0].EndpointID != "ep_1" {
		t.Fatal(page, err)
	}
	want := "cursor=c&endpoint_id=ep_1&limit=5&since=2026-11-30T11%3A00%3A00Z&type=order.%2A"
	if req.URL.RawQuery != want {
		t.Errorf("query = %q, want %q", req.URL.RawQuery, want)
	}
	if _, err := c.GetEvent(context.Background(), "evt/1"); err != nil {
		t.Fatal(err)
	}
	if got := req.URL.EscapedPath(); got != "/v1/events/evt%2F1" {
		t.Errorf("path = %q", got)
	}
}
