package secretbox

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustKey(t *testing.T) []byte {
	t.Helper()
	k, err := GenerateKey()
	require.NoError(t, err)
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	b, err := New(mustKey(t))
	require.NoError(t, err)
	plain := []byte("whsec_c2VjcmV0LXZhbHVlLWZvci10ZXN0cw==")
	sealed1, err := b.Seal(plain, []byte("ep_1"))
	require.NoError(t, err)
	sealed2, err := b.Seal(plain, []byte("ep_1"))
	require.NoError(t, err)

	require.Equal(t, DefaultKeyID, sealed1[0], "first byte is the key ID")
	require.False(t, bytes.Contains(sealed1, plain), "plaintext must not appear in the sealed value")
	require.NotEqual(t, sealed1, sealed2, "each seal uses a fresh nonce")

	got, err := b.Open(sealed1, []byte("ep_1"))
	require.NoError(t, err)
	require.Equal(t, plain, got)
}

func TestOpenRejects(t *testing.T) {
	b, err := New(mustKey(t))
	require.NoError(t, err)
	other, err := New(mustKey(t))
	require.NoError(t, err)
	sealed, err := b.Seal([]byte("whsec_abc"), []byte("ep_1"))
	require.NoError(t, err)
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	unknownKey := bytes.Clone(sealed)
	unknownKey[0] = 9

	for name, tc := range map[string]struct {
		box    *Box
		sealed []byte
		ad     string
	}{
		"wrong additional data": {b, sealed, "ep_2"},
		"wrong key":             {other, sealed, "ep_1"},
		"tampered":              {b, tampered, "ep_1"},
		"unknown key id":        {b, unknownKey, "ep_1"},
		"truncated":             {b, sealed[:10], "ep_1"},
		"empty":                 {b, nil, "ep_1"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.box.Open(tc.sealed, []byte(tc.ad))
			require.True(t, errors.Is(err, ErrDecrypt), "got %v", err)
		})
	}
}

func TestKeyringOpensOldKeysAndSealsWithCurrent(t *testing.T) {
	k1, k2 := mustKey(t), mustKey(t)
	old, err := New(k1)
	require.NoError(t, err)
	sealedOld, err := old.Seal([]byte("v"), nil)
	require.NoError(t, err)

	ring, err := NewKeyring(2, map[byte][]byte{1: k1, 2: k2})
	require.NoError(t, err)
	got, err := ring.Open(sealedOld, nil)
	require.NoError(t, err)
	require.Equal(t, []byte("v"), got)

	sealedNew, err := ring.Seal([]byte("v"), nil)
	require.NoError(t, err)
	require.Equal(t, byte(2), sealedNew[0])
	_, err = old.Open(sealedNew, nil)
	require.ErrorIs(t, err, ErrDecrypt)
}

func TestNewRejectsBadKeys(t *testing.T) {
	_, err := New(make([]byte, 16))
	require.ErrorContains(t, err, "want 32")
	_, err = NewKeyring(3, map[byte][]byte{1: mustKey(t)})
	require.ErrorContains(t, err, "not in the keyring")
}
