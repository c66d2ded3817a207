package eventkey

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSealOpen(t *testing.T) {
	key, err := New()
	require.NoError(t, err)
	require.Len(t, key, KeySize)
	sealed, err := Seal(key, "evt_1", `{"name":"Ada"}`)
	require.NoError(t, err)
	require.NotContains(t, string(sealed), "Ada")

	body, err := Open(key, "evt_1", sealed)
	require.NoError(t, err)
	require.Equal(t, `{"name":"Ada"}`, body)

	_, err = Open(key, "evt_2", sealed)
	require.ErrorIs(t, err, ErrOpen, "bound to its event")
	other, err := New()
	require.NoError(t, err)
	_, err = Open(other, "evt_1", sealed)
	require.ErrorIs(t, err, ErrOpen, "only its own key opens it")
	_, err = Seal(key[:16], "evt_1", "x")
	require.Error(t, err, "a key of the wrong size")
}

// A body that compresses is sealed compressed (the payload codec cannot
// compress ciphertext); one that does not is sealed as is. Both open to
// the same bytes.
func TestSealCompressesWhatCompresses(t *testing.T) {
	key, err := New()
	require.NoError(t, err)
	json := `{"items":[` + strings.Repeat(`{"sku":"A-100","qty":1,"currency":"EUR"},`, 200) + `{}]}`
	sealed, err := Seal(key, "evt_1", json)
	require.NoError(t, err)
	require.Less(t, len(sealed), len(json)/5, "compressed before sealing")
	body, err := Open(key, "evt_1", sealed)
	require.NoError(t, err)
	require.Equal(t, json, body)

	random := make([]byte, 4096)
	_, _ = rand.Read(random)
	sealed, err = Seal(key, "evt_2", string(random))
	require.NoError(t, err)
	require.LessOrEqual(t, len(sealed), len(random)+1+40, "stored as is, with the format byte and GCM's nonce and tag")
	body, err = Open(key, "evt_2", sealed)
	require.NoError(t, err)
	require.Equal(t, string(random), body)
}
