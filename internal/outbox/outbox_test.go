package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/store/storetest"
)

// emitter records what it is asked to publish and fails while fail
// holds errors.
type emitter struct {
	mu   sync.Mutex
	fail []error
	got  []opevents.Event
}

func (e *emitter) Emit(_ context.Context, ev opevents.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
	if len(e.fail) > 0 {
		err := e.fail[0]
		e.fail = e.fail[1:]
		return err
	}
	return nil
}

func (e *emitter) published() []opevents.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]opevents.Event(nil), e.got...)
}

func openStore(t *testing.T) *sqlstore.Store {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// createWithEvent creates an endpoint of tenant acme, announcing it.
func createWithEvent(t *testing.T, db *sqlstore.Store, id string) opevents.Event {
	ctx := context.Background()
	_, _, err := db.PutTenant(ctx, &store.Tenant{ID: "acme", Name: "Acme", CreatedAt: time.Now(), UpdatedAt: time.Now()})
	require.NoError(t, err)
	ep := &store.Endpoint{ID: id, TenantID: "acme", URL: "https://example.com", Enabled: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	ev := opevents.EndpointEvent(opevents.EndpointCreated, ep, "platform", "", nil, ep.UpdatedAt)
	require.NoError(t, db.CreateEndpointWithin(ctx, ep, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 0, ev.Record()))
	return ev
}

// A publish that fails is retried after its backoff with the same ID
// and body, and the row is deleted only once it was published.
func TestFailedPublishIsRetried(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	want := createWithEvent(t, db, "ep_retry")
	now := time.Now()
	em := &emitter{fail: []error{fmt.Errorf("emit: %w", ingest.ErrUnavailable), fmt.Errorf("emit: %w", ingest.ErrUnavailable)}}
	p := New(Config{Store: db, Emitter: em, Now: func() time.Time { return now }})

	require.Zero(t, p.Drain(ctx), "the first publish fails")
	require.Zero(t, p.Drain(ctx), "not due again before its backoff")
	now = now.Add(Backoff(1))
	require.Zero(t, p.Drain(ctx), "the second fails")
	now = now.Add(Backoff(2) - time.Millisecond)
	require.Zero(t, p.Drain(ctx), "the backoff doubles")
	now = now.Add(time.Millisecond)
	require.Equal(t, 1, p.Drain(ctx))
	now = now.Add(time.Hour)
	require.Zero(t, p.Drain(ctx), "published rows are deleted")

	got := em.published()
	require.Len(t, got, 3)
	tenant, err := db.GetTenant(ctx, "acme")
	require.NoError(t, err)
	wantBody, err := json.Marshal(want.Body)
	require.NoError(t, err)
	for _, ev := range got {
		require.Equal(t, want.ID, ev.ID, "one ID: ingest deduplicates a publish repeated")
		require.Equal(t, opevents.EndpointCreated, ev.Type)
		require.Equal(t, "acme", ev.TenantID)
		require.Equal(t, tenant.Incarnation, ev.TenantIncarnation, "the incarnation the store gave the endpoint")
		body, err := json.Marshal(ev.Body)
		require.NoError(t, err)
		require.JSONEq(t, string(wantBody), string(body))
	}
}

// An event ingest refuses for good is dropped, not retried forever.
func TestConflictIsDropped(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	createWithEvent(t, db, "ep_conflict")
	em := &emitter{fail: []error{fmt.Errorf("emit: %w", ingest.ErrConflict)}}
	now := time.Now()
	p := New(Config{Store: db, Emitter: em, Now: func() time.Time { return now }})
	require.Zero(t, p.Drain(ctx))
	now = now.Add(time.Hour)
	require.Zero(t, p.Drain(ctx))
	require.Len(t, em.published(), 1)
}

// Run publishes a commit's events at once, without waiting for its
// poll, and leaves a row it was publishing when stopped to the next.
func TestRunWakesOnCommit(t *testing.T) {
	db := openStore(t)
	em := &emitter{}
	p := New(Config{Store: db, Emitter: em, Poll: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	time.Sleep(50 * time.Millisecond) // Run's first drain found nothing
	ev := createWithEvent(t, db, "ep_wake")
	require.Eventually(t, func() bool { return len(em.published()) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, ev.ID, em.published()[0].ID)
}

func TestBackoff(t *testing.T) {
	for attempts, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 9: 256 * time.Second, 10: 5 * time.Minute, 100: 5 * time.Minute} {
		require.Equal(t, want, Backoff(attempts), "attempts %d", attempts)
	}
}

// A failed publish ends the drain: the rest of the claim is not tried
// against an ingest that is down, and is due again with the failed row.
// A copy refused beside one that failed is retried, not dropped.
func TestFailureEndsTheDrain(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	createWithEvent(t, db, "ep_1")
	createWithEvent(t, db, "ep_2")
	createWithEvent(t, db, "ep_3")
	down := fmt.Errorf("emit: %w", ingest.ErrUnavailable)
	em := &emitter{fail: []error{errors.Join(down, fmt.Errorf("emit: %w", ingest.ErrConflict))}}
	now := time.Now()
	p := New(Config{Store: db, Emitter: em, Now: func() time.Time { return now }})

	require.Zero(t, p.Drain(ctx))
	require.Len(t, em.published(), 1, "the first failed; the others were not tried")
	require.Zero(t, p.Drain(ctx), "none due before the backoff")
	now = now.Add(Backoff(1))
	require.Equal(t, 3, p.Drain(ctx), "all three, the failed one again")
	require.Len(t, em.published(), 4)
}
