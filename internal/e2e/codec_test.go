package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/testkit"
)

// devAt starts hookd dev on dir with the shared instance's settings, the
// given Temporal address (kept across restarts) and payload settings.
func devAt(t *testing.T, dir, temporalAddr string, payload app.PayloadConfig, uiAddr string) *app.Dev {
	t.Helper()
	d, err := startDevWith(dir, temporalAddr, payload, uiAddr)
	require.NoError(t, err)
	return d
}

func startDevWith(dir, temporalAddr string, payload app.PayloadConfig, uiAddr string) (*app.Dev, error) {
	return app.StartDev(context.Background(), app.DevConfig{
		DataDir: dir, HTTPAddr: "127.0.0.1:0", TemporalAddr: temporalAddr, UIAddr: uiAddr,
		Logger:           slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		TemporalLogLevel: slog.LevelError, Version: "test", WorkflowCacheSize: e2eWorkflowCache,
		Payload: payload,
	})
}

// dataFiles are the files in which a data dir keeps payloads: Temporal's
// histories and visibility, and the endpoint store's event records,
// write-ahead logs included.
var dataFiles = []string{"temporal.db", "temporal.db-wal", "temporal-visibility.db", "temporal-visibility.db-wal", "hookd.db", "hookd.db-wal"}

// foundIn returns the data files of dir whose raw bytes contain s.
func foundIn(t *testing.T, dir, s string) []string {
	t.Helper()
	var found []string
	for _, name := range dataFiles {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) && strings.HasSuffix(name, "-wal") {
			continue
		}
		require.NoError(t, err)
		if bytes.Contains(raw, []byte(s)) {
			found = append(found, name)
		}
	}
	return found
}

// deliveryView reads GET /v1/deliveries/{id}, its payload included.
func (c *apiClient) deliveryView(id string) deliveryState {
	c.t.Helper()
	var v deliveryState
	require.Equal(c.t, http.StatusOK, c.do("GET", "/v1/deliveries/"+id, nil, &v))
	return v
}

func marker(prefix string) string { return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()) }

// TestPayloadsEncryptedAtRest runs hookd dev first with encryption and
// per-event keys off, leaving plaintext histories (one delivery done, one
// waiting to retry), then on: the old deliveries still read, dedup and
// finish, and a new event's marker is nowhere in Temporal's files while
// it arrives intact.
func TestPayloadsEncryptedAtRest(t *testing.T) {
	dir, temporalAddr := t.TempDir(), testkit.FreeAddr(t)
	var down atomic.Bool
	down.Store(true)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter) {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})

	var running *app.Dev
	t.Cleanup(func() {
		if running != nil {
			running.Stop(context.Background())
		}
	})
	plain := devAt(t, dir, temporalAddr, app.PayloadConfig{Off: true, NoEventKeys: true}, "")
	running = plain
	_, err := os.Stat(filepath.Join(dir, app.PayloadKeysFile))
	require.ErrorIs(t, err, os.ErrNotExist, "encryption off creates no key")
	api := &apiClient{t: t, dev: plain}
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"codec.*"}, "retry_schedule": []string{"3s", "3s", "3s", "3s", "3s", "3s", "3s", "3s", "3s", "3s"}})
	oldMarker, oldEvent := marker("plaintext-era"), marker("evt")
	oldBody := fmt.Sprintf(`{"event_id":%q,"type":"codec.checked","payload":{"note":%q}}`, oldEvent, oldMarker)
	waiting := api.send(oldBody).Deliveries[0].ID
	require.Eventually(t, func() bool { return len(rc.Hits()) >= 1 }, 30*time.Second, 20*time.Millisecond)
	plain.Stop(context.Background())
	running = nil
	require.NotEmpty(t, foundIn(t, dir, oldMarker), "control: with encryption off the payload is in Temporal's files, so the scan can see one")

	secure := devAt(t, dir, temporalAddr, app.PayloadConfig{}, "")
	running = secure
	keys, err := secretbox.ReadKeysFile(filepath.Join(dir, app.PayloadKeysFile))
	require.NoError(t, err, "encryption on creates the data dir's key file")
	require.Len(t, keys, 1)
	api = &apiClient{t: t, dev: secure}
	down.Store(false)

	// The plaintext-era delivery finishes, reads and deduplicates.
	require.EqualValues(t, "delivered", api.waitDelivery(waiting, time.Minute).Status)
	require.Contains(t, string(api.deliveryView(waiting).Payload), oldMarker)
	again := api.send(oldBody)
	require.True(t, again.Duplicate, "a re-post of the plaintext-era event is still a duplicate")

	// A new event is encrypted at rest.
	secret := marker("customer-secret")
	body := fmt.Sprintf(`{"event_id":%q,"type":"codec.checked","payload":{"email":"%s@example.com"}}`, marker("evt"), secret)
	id := api.send(body).Deliveries[0].ID
	require.EqualValues(t, "delivered", api.waitDelivery(id, 30*time.Second).Status)
	last := rc.Hits()[len(rc.Hits())-1]
	require.Equal(t, id, verify(t, last, ep.Secret))
	require.Contains(t, string(last.Body), secret, "the receiver gets the plaintext")
	require.Contains(t, string(api.deliveryView(id).Payload), secret, "the API shows it")
	require.True(t, api.send(body).Duplicate, "a re-post of the encrypted-era event is a duplicate")

	secure.Stop(context.Background())
	running = nil
	require.Empty(t, foundIn(t, dir, secret), "the marker must not be stored in plaintext")
	// The summary "codec.checked -> ep_..." as JSON, which escapes ">".
	require.NotEmpty(t, foundIn(t, dir, `codec.checked -\u003e `+ep.ID), "the workflow summary stays plaintext")
}

// TestPayloadKeyRotation starts a delivery under key 1, restarts hookd dev
// with key 2 appended to the key file, and lets it finish: its input stays
// under key 1, what it wrote after the restart is under key 2. Then a
// wrong key file stops hookd dev at start.
func TestPayloadKeyRotation(t *testing.T) {
	dir, temporalAddr := t.TempDir(), testkit.FreeAddr(t)
	var down atomic.Bool
	down.Store(true)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter) {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})

	var running *app.Dev
	t.Cleanup(func() {
		if running != nil {
			running.Stop(context.Background())
		}
	})
	first := devAt(t, dir, temporalAddr, app.PayloadConfig{}, "")
	running = first
	keyFile := filepath.Join(dir, app.PayloadKeysFile)
	keys, err := secretbox.ReadKeysFile(keyFile)
	require.NoError(t, err)
	key1 := keys[0]
	api := &apiClient{t: t, dev: first}
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"rotation.*"}, "retry_schedule": []string{"3s", "3s", "3s", "3s", "3s", "3s", "3s", "3s", "3s", "3s"}})
	m := marker("rotated")
	id := api.send(fmt.Sprintf(`{"event_id":%q,"type":"rotation.checked","payload":{"note":%q}}`, marker("evt"), m)).Deliveries[0].ID
	require.Eventually(t, func() bool { return len(rc.Hits()) >= 1 }, 30*time.Second, 20*time.Millisecond)
	first.Stop(context.Background())
	running = nil

	key2, err := secretbox.GenerateKey()
	require.NoError(t, err)
	f, err := os.OpenFile(keyFile, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(secretbox.EncodeKey(key2) + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	second := devAt(t, dir, temporalAddr, app.PayloadConfig{}, "")
	running = second
	api = &apiClient{t: t, dev: second}
	down.Store(false)
	require.EqualValues(t, "delivered", api.waitDelivery(id, time.Minute).Status)
	last := rc.Hits()[len(rc.Hits())-1]
	require.Equal(t, id, verify(t, last, ep.Secret))
	require.Contains(t, string(last.Body), m)
	require.Contains(t, string(api.deliveryView(id).Payload), m, "the key-1 input reads under key 2")

	used := keyIDsInHistory(t, second, id)
	require.Equal(t, codec.KeyID(key1), used[0], "the input was written under key 1")
	require.Equal(t, codec.KeyID(key2), used[len(used)-1], "the result was written under key 2")
	for _, k := range used {
		require.Contains(t, []string{codec.KeyID(key1), codec.KeyID(key2)}, k)
	}
	second.Stop(context.Background())
	running = nil

	// A wrong key is a clear start-up error, not plaintext or garbage.
	stranger, err := secretbox.GenerateKey()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(keyFile, []byte(secretbox.EncodeKey(stranger)+"\n"), 0o600))
	_, err = startDevWith(dir, temporalAddr, app.PayloadConfig{}, "")
	require.ErrorContains(t, err, "key id "+codec.KeyID(key2)+", which is not configured")
}

// keyIDsInHistory returns the key IDs of every encrypted payload in a
// workflow's history, in event order; it fails on a plaintext payload.
func keyIDsInHistory(t *testing.T, d *app.Dev, id string) []string {
	t.Helper()
	resp, err := d.Client.WorkflowService().GetWorkflowExecutionHistory(context.Background(), historyRequest(id))
	require.NoError(t, err)
	var ids []string
	for _, ev := range resp.GetHistory().GetEvents() {
		for _, p := range payloadsIn(ev) {
			enc := string(p.GetMetadata()["encoding"])
			require.Equal(t, codec.EncodingEncrypted, enc, "event %s holds a plaintext payload", ev.GetEventType())
			ids = append(ids, string(p.GetMetadata()[codec.MetadataKeyID]))
		}
	}
	require.NotEmpty(t, ids)
	return ids
}

func historyRequest(id string) *workflowservice.GetWorkflowExecutionHistoryRequest {
	return &workflowservice.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: &commonpb.WorkflowExecution{WorkflowId: id}}
}

// payloadsIn collects every Payload inside a message, however nested,
// except in search attributes and user metadata (the summary): plaintext
// by design.
func payloadsIn(m proto.Message) []*commonpb.Payload {
	if p, ok := m.(*commonpb.Payload); ok {
		return []*commonpb.Payload{p}
	}
	var out []*commonpb.Payload
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.Name() == "search_attributes" || fd.Name() == "user_metadata" {
			return true
		}
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				out = append(out, payloadsIn(v.List().Get(i).Message().Interface())...)
			}
		case fd.IsMap():
			if fd.MapValue().Kind() != protoreflect.MessageKind {
				return true
			}
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				out = append(out, payloadsIn(mv.Message().Interface())...)
				return true
			})
		default:
			out = append(out, payloadsIn(v.Message().Interface())...)
		}
		return true
	})
	return out
}
