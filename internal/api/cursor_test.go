package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// unkeyedCursor is a cursor as anyone could forge one before cursors were
// signed: the token and a SHA-256 of a public label and the token.
func unkeyedCursor(token []byte) string {
	sum := sha256.Sum256(append([]byte("hookd page cursor\x00"), token...))
	return base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), token...), sum[:8]...))
}

func TestCursorsAreSigned(t *testing.T) {
	token := []byte("a temporal page token")
	a, err := newCursors([]byte("the deployment's master key"))
	require.NoError(t, err)
	got, err := a.decode(a.encode(token))
	require.NoError(t, err)
	require.Equal(t, token, got)
	require.Equal(t, "", a.encode(nil), "no further page")
	got, err = a.decode("")
	require.NoError(t, err)
	require.Nil(t, got, "the first page")

	again, err := newCursors([]byte("the deployment's master key"))
	require.NoError(t, err)
	got, err = again.decode(a.encode(token))
	require.NoError(t, err, "another API process of the deployment reads the cursor")
	require.Equal(t, token, got)

	other, err := newCursors([]byte("another deployment's key"))
	require.NoError(t, err)
	random, err := newCursors(nil)
	require.NoError(t, err)
	raw, _ := base64.RawURLEncoding.DecodeString(a.encode(token))
	raw[0] ^= 1
	for name, c := range map[string]string{
		"forged with the old unkeyed checksum": unkeyedCursor(token),
		"another key's":                        other.encode(token),
		"a random key's":                       random.encode(token),
		"tampered token":                       base64.RawURLEncoding.EncodeToString(raw),
		"not base64":                           "bogus!",
		"too short":                            "AAAA",
	} {
		_, err := a.decode(c)
		require.Equal(t, invalidCursor(), err, name)
	}
}

// TestForgedCursorRefusedBeforeTemporal: a forged cursor on a Temporal
// list is a 400 naming "cursor", and Temporal is never asked.
func TestForgedCursorRefusedBeforeTemporal(t *testing.T) {
	tc := &fakeTemporal{}
	s := newTestServer(t, tc)
	for _, list := range []string{"/v1/deliveries", "/v1/dead-letters"} {
		req := httptest.NewRequest(http.MethodGet, list+"?cursor="+unkeyedCursor([]byte("forged")), nil)
		req.Header.Set("Authorization", "Bearer k")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Equal(t, http.StatusBadRequest, rec.Code, list)
		var out struct{ Error Error }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		require.Equal(t, Error{Code: CodeInvalid, Field: "cursor", Message: "is not a cursor this API returned"}, out.Error, list)
	}
	require.Empty(t, tc.listed(), "Temporal never saw the forged token")
}
