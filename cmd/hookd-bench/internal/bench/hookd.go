package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/freeport"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

// hookdTarget is an in-process `hookd dev` under test, and an HTTP client
// for its API.
type hookdTarget struct {
	dev *app.Dev
	dir string
	hc  *http.Client
	tp  *sdktrace.TracerProvider // nil: tracing off
}

// startHookd starts the embedded default in a fresh data directory.
func startHookd(ctx context.Context, cfg Config) (*hookdTarget, error) {
	dir, err := os.MkdirTemp("", "hookd-bench-")
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var tp *sdktrace.TracerProvider
	if cfg.Tracing {
		tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	}
	dev, err := app.StartDevTuned(ctx, app.DevConfig{
		DataDir:           dir,
		HTTPAddr:          "127.0.0.1:0",
		TemporalAddr:      addr,
		Logger:            cfg.HookdLog,
		TemporalLogLevel:  slog.LevelError,
		Circuit:           cfg.Circuit,
		WorkflowCacheSize: cfg.WorkflowCacheSize,
		Version:           "bench",
		Payload:           app.PayloadConfig{Off: cfg.PlaintextPayloads, NoEventKeys: cfg.NoEventKeys},
		TracerProvider:    tracerProvider(tp),
	}, app.Tuning{
		RecoverImmediate:    cfg.RecoverImmediate,
		WorkflowTaskPollers: cfg.WorkflowTaskPollers,
		DisabledPoll:        cfg.DisabledPoll,
		Temporal:            cfg.TemporalTuning,
	})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start hookd: %w", err)
	}
	tr := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute}
	return &hookdTarget{dev: dev, dir: dir, tp: tp, hc: &http.Client{Transport: tr, Timeout: time.Minute}}, nil
}

// tracerProvider is tp as DevConfig takes it: a nil interface, tracing
// off, when tp is nil.
func tracerProvider(tp *sdktrace.TracerProvider) trace.TracerProvider {
	if tp == nil {
		return nil
	}
	return tp
}

func (h *hookdTarget) stop() {
	h.dev.Stop(context.Background())
	if h.tp != nil {
		_ = h.tp.Shutdown(context.Background())
	}
	_ = os.RemoveAll(h.dir)
}

// call sends a JSON request to the API and decodes the answer into out.
func (h *hookdTarget) call(ctx context.Context, method, path string, body, out any, want int) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, h.dev.APIURL+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+h.dev.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: status %d: %.200s", method, path, resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// createEndpoint subscribes url to eventType with the given schedule (nil:
// hookd's default) and returns the endpoint ID.
func (h *hookdTarget) createEndpoint(ctx context.Context, url, eventType string, schedule []string) (string, error) {
	body := map[string]any{"url": url, "event_types": []string{eventType}}
	if schedule != nil {
		body["retry_schedule"] = schedule
	}
	var ep wire.Endpoint
	if err := h.call(ctx, http.MethodPost, "/v1/endpoints", body, &ep, http.StatusCreated); err != nil {
		return "", fmt.Errorf("create endpoint: %w", err)
	}
	return ep.ID, nil
}

// payload is a small order-like JSON object, the same for every event.
var payload = json.RawMessage(`{"order_id":"ord_4711","amount":1299,"currency":"EUR","customer":{"id":"cus_42","email":"buyer@example.com"},"items":[{"sku":"sku-1","qty":2},{"sku":"sku-2","qty":1}]}`)

// apiStarter posts events through the API: one per POST /v1/events, or
// several per POST /v1/events/batch.
func (h *hookdTarget) apiStarter(eventType string) starter {
	return func(ctx context.Context, ids []string) error {
		if len(ids) == 1 {
			return h.call(ctx, http.MethodPost, "/v1/events", wire.EventCreate{EventID: &ids[0], Type: eventType, Payload: payload}, nil, http.StatusAccepted)
		}
		var in wire.EventBatch
		for _, id := range ids {
			raw, err := json.Marshal(wire.EventCreate{EventID: &id, Type: eventType, Payload: payload})
			if err != nil {
				return err
			}
			in.Events = append(in.Events, raw)
		}
		var out wire.EventBatchResults
		if err := h.call(ctx, http.MethodPost, "/v1/events/batch", in, &out, http.StatusOK); err != nil {
			return err
		}
		for _, r := range out.Results {
			if r.Status != http.StatusAccepted {
				return fmt.Errorf("batch event: status %d", r.Status)
			}
		}
		return nil
	}
}

// directStarter starts deliveries in-process through ingest.Publisher,
// skipping HTTP, the endpoint lookup and the event record, with eager
// start on or off.
func (h *hookdTarget) directStarter(eventType, endpointID string, eager bool) (starter, error) {
	eps := []*store.Endpoint{{ID: endpointID}}
	p := &ingest.Publisher{Temporal: h.dev.Client, Endpoints: unrecorded{eps}, Records: unrecorded{eps}, EagerStart: eager}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	body := string(payload)
	return func(ctx context.Context, ids []string) error {
		for _, id := range ids {
			if _, err := p.PublishTo(ctx, ingest.Event{ID: id, Type: eventType, Body: body}, eps); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// unrecorded claims every event without recording it, and matches every
// event to its one endpoint without a lookup: the direct starters measure
// the delivery starts alone.
type unrecorded struct{ eps []*store.Endpoint }

func (u unrecorded) MatchingEndpoints(context.Context, string, string) ([]*store.Endpoint, error) {
	return u.eps, nil
}

func (unrecorded) ClaimEvent(_ context.Context, ev *store.Event) (*store.Event, bool, error) {
	return ev, true, nil
}

func (unrecorded) GetEndpoint(context.Context, string) (*store.Endpoint, error) {
	return nil, store.ErrNotFound
}

// deliveryIDs are the workflow IDs of the events' deliveries to endpointID.
func deliveryIDs(events []string, endpointID string) []string {
	out := make([]string, len(events))
	for i, id := range events {
		out[i] = delivery.ID(id, endpointID)
	}
	return out
}

// eventIDs names n events of a phase uniquely within the run.
func eventIDs(phase string, n int) []string {
	out := make([]string, n)
	stamp := time.Now().UnixNano()
	for i := range out {
		out[i] = fmt.Sprintf("bench_%s_%d_%d", strings.ReplaceAll(phase, " ", "_"), stamp, i)
	}
	return out
}

// freeAddr is a loopback address for a server the bench starts, drawn by
// internal/freeport.
func freeAddr() (string, error) { return freeport.Addr("127.0.0.1") }
