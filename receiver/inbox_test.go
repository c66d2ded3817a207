package receiver

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const effectsSchema = `CREATE TABLE effects (delivery_id TEXT NOT NULL)`

// recordEffect is the test's business work: one effects row per call.
func recordEffect(tx *sql.Tx, d *Delivery) error {
	_, err := tx.Exec(`INSERT INTO effects (delivery_id) VALUES (?)`, d.ID)
	return err
}

// newStack returns the full receiving stack (Middleware + Inbox.Handler
// writing effects) over a fresh database.
func newStack(t *testing.T) (http.Handler, *Inbox, *sql.DB) {
	t.Helper()
	db, _ := newDB(t)
	_, err := db.Exec(effectsSchema)
	require.NoError(t, err)
	in, err := NewInbox(db, SQLite)
	require.NoError(t, err)
	v, err := NewVerifier([]string{vecSecret})
	require.NoError(t, err)
	return Middleware(v, MiddlewareOptions{})(in.Handler(recordEffect)), in, db
}

func decodeStatus(t *testing.T, w interface{ Result() *http.Response }) map[string]string {
	t.Helper()
	var m map[string]string
	require.NoError(t, json.NewDecoder(w.Result().Body).Decode(&m))
	return m
}

func TestInboxOnce(t *testing.T) {
	h, in, db := newStack(t)
	now := time.Now()
	first := signedHeader(t, vecSecret, "dlv_1", now, `{"n":1}`)

	w := post(h, first, `{"n":1}`)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "accepted", decodeStatus(t, w)["status"])

	// A retry re-signs with a fresh timestamp but the same id and bytes.
	retry := signedHeader(t, vecSecret, "dlv_1", now.Add(time.Second), `{"n":1}`)
	w = post(h, retry, `{"n":1}`)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "duplicate", decodeStatus(t, w)["status"])
	assert.Equal(t, 1, countRows(t, db, `SELECT COUNT(*) FROM effects WHERE delivery_id = 'dlv_1'`))

	// Same id, different body: quarantined, not processed.
	w = post(h, signedHeader(t, vecSecret, "dlv_1", now, `{"n":2}`), `{"n":2}`)
	require.Equal(t, StatusQuarantined, w.Code)
	assert.Equal(t, "quarantined", decodeStatus(t, w)["error"])
	w = post(h, signedHeader(t, vecSecret, "dlv_1", now, `{"n":2}`), `{"n":2}`)
	require.Equal(t, StatusQuarantined, w.Code)
	assert.Equal(t, 1, countRows(t, db, `SELECT COUNT(*) FROM effects`))
	assert.EqualValues(t, 2, in.QuarantinedCount())

	var digest, state string
	require.NoError(t, db.QueryRow(`SELECT digest, state FROM hookd_inbox WHERE delivery_id = 'dlv_1'`).Scan(&digest, &state))
	assert.Equal(t, Digest([]byte(`{"n":1}`)), digest, "the original row is untouched")
	assert.Equal(t, StatePending, state)

	stats, err := in.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, Stats{Pending: 1, Quarantined: 1, QuarantineHits: 2}, stats)
}

func TestInboxRefusesBeforeLookup(t *testing.T) {
	h, _, db := newStack(t)
	now := time.Now()
	require.Equal(t, http.StatusOK, post(h, signedHeader(t, vecSecret, "dlv_1", now, `{}`), `{}`).Code)

	tests := []struct {
		name string
		h    http.Header
	}{
		{"forged signature for a known id", signedHeader(t, "whsec_"+"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB", "dlv_1", now, `{}`)},
		{"replayed old timestamp, new id", signedHeader(t, vecSecret, "dlv_2", now.Add(-10*time.Minute), `{}`)},
		{"forged signature, new id", signedHeader(t, "whsec_"+"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB", "dlv_3", now, `{}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := post(h, tt.h, `{}`)
			require.Equal(t, http.StatusUnauthorized, w.Code)
		})
	}
	assert.Equal(t, 1, countRows(t, db, `SELECT COUNT(*) FROM hookd_inbox`))
	assert.Equal(t, 1, countRows(t, db, `SELECT COUNT(*) FROM effects`))
	assert.Equal(t, 0, countRows(t, db, `SELECT COUNT(*) FROM hookd_quarantine`))
}

func TestInboxWorkErrorRollsBackRow(t *testing.T) {
	db, _ := newDB(t)
	_, err := db.Exec(effectsSchema)
	require.NoError(t, err)
	in, err := NewInbox(db, SQLite)
	require.NoError(t, err)
	d, err := Verify([]byte(`{}`), signedHeader(t, vecSecret, "dlv_1", time.Now(), `{}`), vecSecret)
	require.NoError(t, err)

	boom := errors.New("boom")
	_, err = in.Accept(t.Context(), d, func(tx *sql.Tx, d *Delivery) error {
		if err := recordEffect(tx, d); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 0, countRows(t, db, `SELECT COUNT(*) FROM hookd_inbox`), "no mark without the work")
	assert.Equal(t, 0, countRows(t, db, `SELECT COUNT(*) FROM effects`))

	// The sender's retry then succeeds.
	o, err := in.Accept(t.Context(), d, recordEffect)
	require.NoError(t, err)
	assert.Equal(t, Accepted, o)
	assert.Equal(t, 1, countRows(t, db, `SELECT COUNT(*) FROM effects`))
}

func TestHandlerWithoutMiddleware(t *testing.T) {
	db, _ := newDB(t)
	in, err := NewInbox(db, SQLite)
	require.NoError(t, err)
	w := post(in.Handler(nil), http.Header{}, `{}`)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
}

func TestDialectRebind(t *testing.T) {
	assert.Equal(t, "a = $1 AND b <= $2", Postgres.rebind("a = ? AND b <= ?"))
	assert.Equal(t, "a = ?", SQLite.rebind("a = ?"))
	_, err := NewInbox(nil, Dialect("mysql"))
	require.Error(t, err)
	require.Error(t, Migrate(t.Context(), nil, Dialect("mysql")))
}
