package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// execution is a running workflow as visibility sees it.
type execution struct {
	typ, endpoint, reason string
	start                 time.Time
}

// fakeVisibility answers count and list queries over executions, knowing the
// clauses the API writes; it counts the calls and the executions listed.
type fakeVisibility struct {
	client.Client
	t             *testing.T
	execs         []execution
	calls, listed atomic.Int64
}

func (v *fakeVisibility) match(query string) []execution {
	t := v.t
	v.calls.Add(1)
	keep := func(execution) bool { return true }
	for _, clause := range strings.Split(query, " AND ") {
		prev := keep
		if field, list, ok := strings.Cut(clause, " NOT IN "); ok {
			require.Equal(t, delivery.AttrEndpointID.GetName(), field)
			out := strings.Split(strings.Trim(list, "()"), ", ")
			keep = func(e execution) bool { return prev(e) && !slices.Contains(out, "'"+e.endpoint+"'") }
			continue
		}
		field, value, ok := strings.Cut(clause, " = ")
		if !ok {
			field, value, ok = strings.Cut(clause, " < ")
		}
		require.True(t, ok, "clause %q", clause)
		value = strings.Trim(value, "'")
		switch field {
		case "ExecutionStatus":
		case "WorkflowType":
			keep = func(e execution) bool { return prev(e) && e.typ == value }
		case delivery.AttrEndpointID.GetName():
			keep = func(e execution) bool { return prev(e) && e.endpoint == value }
		case delivery.AttrReason.GetName():
			keep = func(e execution) bool { return prev(e) && e.reason == value }
		case "StartTime":
			before, err := time.Parse(time.RFC3339Nano, value)
			require.NoError(t, err)
			keep = func(e execution) bool { return prev(e) && e.start.Before(before) }
		default:
			t.Fatalf("unexpected clause %q", clause)
		}
	}
	var out []execution
	for _, e := range v.execs {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func (v *fakeVisibility) CountWorkflow(_ context.Context, req *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return &workflowservice.CountWorkflowExecutionsResponse{Count: int64(len(v.match(req.GetQuery())))}, nil
}

func (v *fakeVisibility) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	all := v.match(req.GetQuery())
	from, _ := strconv.Atoi(string(req.GetNextPageToken()))
	to := min(from+int(req.GetPageSize()), len(all))
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, e := range all[from:to] {
		attrs := map[string]*commonpb.Payload{}
		for name, val := range map[string]string{delivery.AttrEndpointID.GetName(): e.endpoint, delivery.AttrReason.GetName(): e.reason} {
			if val != "" {
				p, err := converter.GetDefaultDataConverter().ToPayload(val)
				require.NoError(v.t, err)
				attrs[name] = p
			}
		}
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{StartTime: timestamppb.New(e.start),
			SearchAttributes: &commonpb.SearchAttributes{IndexedFields: attrs}})
	}
	if to < len(all) {
		resp.NextPageToken = []byte(strconv.Itoa(to))
	}
	v.listed.Add(int64(to - from))
	return resp, nil
}

// listingStore is fakeStore that lists its endpoints and has closed
// circuits.
type listingStore struct{ *fakeStore }

func (l listingStore) ListEndpoints(_ context.Context, f store.TenantFilter, p store.Page) ([]*store.Endpoint, string, error) {
	var ids []string
	for id, ep := range l.endpoints {
		if f.All || ep.TenantID == f.ID {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	from, _ := strconv.Atoi(p.Cursor)
	to := min(from+p.Limit, len(ids))
	var out []*store.Endpoint
	for _, id := range ids[from:to] {
		out = append(out, l.endpoints[id])
	}
	next := ""
	if to < len(ids) {
		next = strconv.Itoa(to)
	}
	return out, next, nil
}

func (l listingStore) Circuit(context.Context, string) (circuit.Breaker, error) {
	return circuit.Breaker{State: circuit.Closed}, nil
}

// The dead-letter summary and an endpoint's health read visibility at a
// cost that does not grow with the parked workflows: at 100,000 they make
// about as many calls as at 10, and list at most one page of 1,000.
func TestSummaryAndHealthReadsAreBounded(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{10, 100_000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			vis := &fakeVisibility{t: t}
			oldest := 30 * time.Hour
			for i := range n {
				start := now.Add(-oldest + oldest/time.Duration(n)*time.Duration(i))
				endpoint, reason := []string{"ep_on", "ep_on", "ep_off", "ep_gone"}[i%4], []string{"failed", "exhausted", "exhausted", "exhausted"}[i%4]
				vis.execs = append(vis.execs,
					execution{delivery.WorkflowDeadLetter, endpoint, reason, start},
					execution{delivery.WorkflowDelivery, "ep_on", "", start})
			}
			s := newTestServer(t, &fakeTemporal{})
			s.temporal = vis
			s.store = listingStore{s.store.(*fakeStore)}
			s.now = func() time.Time { return now }

			var sum wire.DeadLetterSummary
			get(t, s, "/v1/dead-letters/summary", &sum)
			assert.EqualValues(t, n, sum.Total)
			q := func(k int) int64 { return int64((n - k + 3) / 4) } // executions i with i%4 == k
			assert.Equal(t, []wire.SummaryGroup{
				{EndpointID: "ep_off", Reason: "exhausted", Count: q(2)},
				{EndpointID: "ep_on", Reason: "failed", Count: q(0)},
				{EndpointID: "ep_on", Reason: "exhausted", Count: q(1)},
				{EndpointID: "", Reason: "exhausted", Count: q(3)},
			}, sum.Groups)
			assert.InEpsilon(t, oldest.Seconds(), sum.OldestAgeSeconds, 0.011)
			summaryCalls := vis.calls.Load()

			var health wire.EndpointHealth
			get(t, s, "/v1/endpoints/ep_on/health", &health)
			assert.EqualValues(t, n, health.PendingDeliveries)
			assert.InEpsilon(t, oldest.Seconds(), health.OldestPendingAgeSeconds, 0.011)
			assert.Equal(t, q(0)+q(1), health.DeadLetters)

			t.Logf("%d parked: %d visibility calls for the summary, %d for the health; %d executions listed", n, summaryCalls, vis.calls.Load()-summaryCalls, vis.listed.Load())
			assert.LessOrEqual(t, summaryCalls, int64(40), "summary calls")
			assert.LessOrEqual(t, vis.calls.Load()-summaryCalls, int64(40), "health calls")
			assert.LessOrEqual(t, vis.listed.Load(), int64(2*1000), "executions listed: at most a page of 1,000 each")
		})
	}
}

// get sends an authenticated GET and decodes the JSON answer into out.
func get(t *testing.T, s *Server, path string, out any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), out), rec.Body.String())
}
