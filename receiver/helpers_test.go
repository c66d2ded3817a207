package receiver

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/hookd/hookd/signing"
)

// vec is the test vector published with the Standard Webhooks
// specification; vecSecret is its secret, used throughout the tests.
var vec = loadVector("testdata/standard-webhooks-vector.json")

var vecSecret = vec.Secret

type specVector struct {
	Secret    string `json:"secret"`
	ID        string `json:"id"`
	Timestamp int64  `json:"timestamp"`
	Body      string `json:"body"`
	Signature string `json:"signature"`
}

func loadVector(path string) specVector {
	raw, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	var v specVector
	if err := json.Unmarshal(raw, &v); err != nil {
		panic(err)
	}
	return v
}

// openDB opens (or reopens) the SQLite file at path and migrates it.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(wal)&_txlock=immediate")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, Migrate(t.Context(), db, SQLite))
	return db
}

func newDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "inbox.db")
	return openDB(t, path), path
}

// signedHeader signs body as delivery id at ts under secret, with hookd's
// event headers.
func signedHeader(t *testing.T, secret, id string, ts time.Time, body string) http.Header {
	t.Helper()
	key, err := signing.DecodeSecret(secret)
	require.NoError(t, err)
	h := http.Header{}
	h.Set(signing.HeaderID, id)
	h.Set(signing.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(signing.HeaderSignature, signing.SignHMAC(key, id, ts, []byte(body)))
	h.Set(HeaderEventType, "order.created")
	h.Set(HeaderEventID, "evt_1")
	return h
}

// post serves one request with headers h and body through handler.
func post(handler http.Handler, h http.Header, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewBufferString(body))
	for k, v := range h {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	return w
}

func countRows(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRowContext(t.Context(), query, args...).Scan(&n))
	return n
}
