package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// eventTypeCases are the suite's cases about the event-type catalog.
var eventTypeCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"EventTypePutGet", testEventTypePutGet},
	{"EventTypeListDelete", testEventTypeListDelete},
}

func newEventType(name string, created time.Duration) *store.EventType {
	return &store.EventType{
		Name:        name,
		Description: "An invoice was paid.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}},"required":["amount"]}`),
		Examples:    []json.RawMessage{json.RawMessage(`{"amount":1500}`), json.RawMessage(`{"amount":1,"note":"ünïcode"}`)},
		CreatedAt:   at(created),
		UpdatedAt:   at(created),
	}
}

func testEventTypePutGet(t *testing.T, s store.Store) {
	ctx := context.Background()
	v0, err := s.EventTypesVersion(ctx)
	require.NoError(t, err)

	want := newEventType("invoice.paid", 0)
	got, created, err := s.PutEventType(ctx, want)
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, want, got, "every field round trips, times to the nanosecond")
	read, err := s.GetEventType(ctx, want.Name)
	require.NoError(t, err)
	require.Equal(t, want, read)
	v1, err := s.EventTypesVersion(ctx)
	require.NoError(t, err)
	require.Greater(t, v1, v0, "a put counts as a change")

	update := &store.EventType{Name: want.Name, Description: "Paid.", Deprecated: true, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour)}
	got, created, err = s.PutEventType(ctx, update)
	require.NoError(t, err)
	require.False(t, created, "a second put replaces")
	require.Equal(t, &store.EventType{Name: want.Name, Description: "Paid.", Deprecated: true, CreatedAt: want.CreatedAt, UpdatedAt: at(time.Hour)}, got,
		"schema and examples removed, creation time kept")
	v2, err := s.EventTypesVersion(ctx)
	require.NoError(t, err)
	require.Greater(t, v2, v1)

	_, err = s.GetEventType(ctx, "missing")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = s.PutEventType(ctx, &store.EventType{Name: "no-times"})
	require.Error(t, err)
}

func testEventTypeListDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	var names []string
	for i := 7; i > 0; i-- { // created in reverse: the list is by name
		name := fmt.Sprintf("type.%d", i)
		_, _, err := s.PutEventType(ctx, newEventType(name, time.Duration(7-i)*time.Second))
		require.NoError(t, err)
		names = append([]string{name}, names...)
	}
	var listed []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 4)
		ts, next, err := s.ListEventTypes(ctx, store.Page{Cursor: cursor, Limit: 3})
		require.NoError(t, err)
		for _, et := range ts {
			listed = append(listed, et.Name)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	require.Equal(t, names, listed)
	_, _, err := s.ListEventTypes(ctx, store.Page{Cursor: "!!"})
	require.ErrorIs(t, err, store.ErrInvalidCursor)

	v0, err := s.EventTypesVersion(ctx)
	require.NoError(t, err)
	require.NoError(t, s.DeleteEventType(ctx, "type.3"))
	_, err = s.GetEventType(ctx, "type.3")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.DeleteEventType(ctx, "type.3"), store.ErrNotFound)
	v1, err := s.EventTypesVersion(ctx)
	require.NoError(t, err)
	require.Equal(t, v0+1, v1, "one delete, one change; the refused one none")
	ts, _, err := s.ListEventTypes(ctx, store.Page{})
	require.NoError(t, err)
	require.Len(t, ts, 6)
}
