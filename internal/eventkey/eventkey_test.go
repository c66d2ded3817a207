package eventkey

import (
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
