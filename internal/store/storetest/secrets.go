package storetest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// values returns the secrets' plaintexts, in the order given.
func values(secrets []store.Secret) []string {
	out := make([]string, len(secrets))
	for i, s := range secrets {
		out[i] = s.Value
	}
	return out
}

func secretsAt(t *testing.T, s store.Store, id string, now time.Time) []store.Secret {
	t.Helper()
	secrets, err := s.Secrets(context.Background(), id, now)
	require.NoError(t, err)
	return secrets
}

func rawSecrets(t *testing.T, s store.Store, id string) [][]byte {
	t.Helper()
	raw, ok := s.(RawSecretReader)
	require.True(t, ok, "%T must implement storetest.RawSecretReader", s)
	values, err := raw.RawSecrets(context.Background(), id)
	require.NoError(t, err)
	return values
}

func testEncryptedAtRest(t *testing.T, s store.Store) {
	ep := newEndpoint("ep_enc", 0)
	create(t, s, ep)
	require.NoError(t, s.RotateSecret(context.Background(), ep.ID, secretFor(ep.ID, 1), at(time.Minute), time.Hour))

	stored := rawSecrets(t, s, ep.ID)
	require.Len(t, stored, 2)
	for i, value := range stored {
		plain := secretFor(ep.ID, i)
		require.NotEmpty(t, value)
		require.False(t, bytes.Contains(value, []byte(plain)), "secret %d is stored in plaintext", i)
		require.False(t, bytes.Contains(value, []byte(strings.TrimPrefix(plain, "whsec_"))), "secret %d is stored in plaintext", i)
	}
	require.Equal(t, []string{secretFor(ep.ID, 1), secretFor(ep.ID, 0)}, values(secretsAt(t, s, ep.ID, at(time.Minute))),
		"the store decrypts what it encrypted")
}

func testRotationOverlap(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_rot", 0)
	create(t, s, ep)
	oldSecret, newSecret := secretFor(ep.ID, 0), secretFor(ep.ID, 1)

	before := secretsAt(t, s, ep.ID, at(time.Minute))
	require.Equal(t, []store.Secret{{Value: oldSecret, CreatedAt: at(0)}}, before, "the first secret is valid from creation and does not expire")

	rotated := at(10 * time.Minute)
	require.NoError(t, s.RotateSecret(ctx, ep.ID, newSecret, rotated, 24*time.Hour))
	expiry := rotated.Add(24 * time.Hour)
	both := []store.Secret{
		{Value: newSecret, CreatedAt: rotated},
		{Value: oldSecret, CreatedAt: at(0), ExpiresAt: expiry},
	}
	require.Equal(t, both, secretsAt(t, s, ep.ID, rotated), "newest first, both valid at rotation")
	require.Equal(t, both, secretsAt(t, s, ep.ID, expiry.Add(-time.Nanosecond)), "both valid until the overlap ends")
	require.Equal(t, []string{newSecret}, values(secretsAt(t, s, ep.ID, expiry)), "only the new secret once the overlap ends")
	require.Equal(t, []string{newSecret}, values(secretsAt(t, s, ep.ID, expiry.Add(time.Hour))))
}

func testRotationWithoutOverlap(t *testing.T, s store.Store) {
	ep := newEndpoint("ep_now", 0)
	create(t, s, ep)
	rotated := at(time.Minute)
	require.NoError(t, s.RotateSecret(context.Background(), ep.ID, secretFor(ep.ID, 1), rotated, 0))
	require.Equal(t, []string{secretFor(ep.ID, 1)}, values(secretsAt(t, s, ep.ID, rotated)), "zero overlap retires the old secret at once")
}

func testRotationNeverExtends(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_chain", 0)
	create(t, s, ep)
	require.NoError(t, s.RotateSecret(ctx, ep.ID, secretFor(ep.ID, 1), at(time.Hour), time.Hour))
	require.NoError(t, s.RotateSecret(ctx, ep.ID, secretFor(ep.ID, 2), at(90*time.Minute), 24*time.Hour))

	got := secretsAt(t, s, ep.ID, at(90*time.Minute))
	require.Equal(t, []string{secretFor(ep.ID, 2), secretFor(ep.ID, 1), secretFor(ep.ID, 0)}, values(got))
	require.Equal(t, at(90*time.Minute+24*time.Hour), got[1].ExpiresAt)
	require.Equal(t, at(2*time.Hour), got[2].ExpiresAt, "a second rotation does not extend the first one's overlap")

	require.Equal(t, []string{secretFor(ep.ID, 2), secretFor(ep.ID, 1)}, values(secretsAt(t, s, ep.ID, at(2*time.Hour))))

	// A rotation after the first secret expired prunes it from storage.
	require.NoError(t, s.RotateSecret(ctx, ep.ID, secretFor(ep.ID, 3), at(3*time.Hour), time.Hour))
	require.Len(t, rawSecrets(t, s, ep.ID), 3)
	require.Equal(t, []string{secretFor(ep.ID, 3), secretFor(ep.ID, 2), secretFor(ep.ID, 1)}, values(secretsAt(t, s, ep.ID, at(3*time.Hour))))
}

func testDeleteCascades(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_casc", 0)
	create(t, s, ep)
	other := newEndpoint("ep_other", time.Second)
	create(t, s, other)
	require.NoError(t, s.RotateSecret(ctx, ep.ID, secretFor(ep.ID, 1), at(time.Minute), time.Hour))
	require.Len(t, rawSecrets(t, s, ep.ID), 2)

	require.NoError(t, s.DeleteEndpoint(ctx, ep.ID))
	require.Empty(t, rawSecrets(t, s, ep.ID), "deleting an endpoint deletes its secrets")
	require.Len(t, rawSecrets(t, s, other.ID), 1, "other endpoints' secrets stay")

	// An endpoint re-created under the same ID does not inherit them.
	create(t, s, newEndpoint(ep.ID, time.Hour))
	require.Equal(t, []string{secretFor(ep.ID, 0)}, values(secretsAt(t, s, ep.ID, at(time.Hour))))
}
