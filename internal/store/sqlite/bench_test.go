package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/catalog"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
)

func BenchmarkDeliveryRead(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "hookd.db"), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	storetest.BenchmarkDeliveryRead(b, s)
}

func BenchmarkClaimEvent(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "hookd.db"), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	storetest.BenchmarkClaimEvent(b, s)
}

// BenchmarkCatalogCheckEvent measures what ingest adds per event for
// the event-type catalog: the change counter's read, and a payload
// checked against a schema.
func BenchmarkCatalogCheckEvent(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "hookd.db"), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	now := time.Now()
	_, _, err = s.PutEventType(ctx, &store.EventType{Name: "invoice.paid", CreatedAt: now, UpdatedAt: now,
		Schema: json.RawMessage(`{"type":"object","required":["amount","currency"],"properties":{"amount":{"type":"integer","minimum":1},"currency":{"enum":["EUR","USD"]}}}`)})
	require.NoError(b, err)
	c := catalog.New(s)
	payload := []byte(`{"amount":1500,"currency":"EUR","invoice_id":"in_42","customer":{"email":"ada@example.com"}}`)
	for _, bc := range []struct{ name, eventType string }{{"NotInCatalog", "order.created"}, {"WithSchema", "invoice.paid"}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.CheckEvent(ctx, bc.eventType, payload, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
