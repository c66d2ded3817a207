package receiver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/signing"
)

func vecHeader(id, stamp, sig string) http.Header {
	h := http.Header{}
	for k, v := range map[string]string{signing.HeaderID: id, signing.HeaderTimestamp: stamp, signing.HeaderSignature: sig} {
		if v != "" {
			h.Set(k, v)
		}
	}
	return h
}

func TestVerifySpecVector(t *testing.T) {
	other, err := signing.NewSecret()
	require.NoError(t, err)
	stamp := strconv.FormatInt(vec.Timestamp, 10)
	tests := []struct {
		name    string
		h       http.Header
		body    string
		secrets []string
		skew    time.Duration
		want    error
	}{
		{"valid", vecHeader(vec.ID, stamp, vec.Signature), vec.Body, []string{vecSecret}, 0, nil},
		{"valid at the edge of tolerance", vecHeader(vec.ID, stamp, vec.Signature), vec.Body, []string{vecSecret}, 5 * time.Minute, nil},
		{"rotation: second secret matches", vecHeader(vec.ID, stamp, vec.Signature), vec.Body, []string{other, vecSecret}, 0, nil},
		{"several signatures, one matches", vecHeader(vec.ID, stamp, "v1,Zm9yZ2Vk v1a,AAAA "+vec.Signature), vec.Body, []string{vecSecret}, 0, nil},
		{"forged signature", vecHeader(vec.ID, stamp, "v1,Zm9yZ2VkIHNpZ25hdHVyZSBmb3IgdGVzdGluZyE="), vec.Body, []string{vecSecret}, 0, ErrNoMatch},
		{"wrong secret", vecHeader(vec.ID, stamp, vec.Signature), vec.Body, []string{other}, 0, ErrNoMatch},
		{"tampered body", vecHeader(vec.ID, stamp, vec.Signature), `{"test": 2432232315}`, []string{vecSecret}, 0, ErrNoMatch},
		{"other id", vecHeader("msg_other", stamp, vec.Signature), vec.Body, []string{vecSecret}, 0, ErrNoMatch},
		{"replayed old timestamp", vecHeader(vec.ID, stamp, vec.Signature), vec.Body, []string{vecSecret}, 5*time.Minute + time.Second, ErrTooOld},
		{"timestamp from the future", vecHeader(vec.ID, stamp, vec.Signature), vec.Body, []string{vecSecret}, -5*time.Minute - time.Second, ErrTooNew},
		{"missing id", vecHeader("", stamp, vec.Signature), vec.Body, []string{vecSecret}, 0, ErrMissingHeader},
		{"missing timestamp", vecHeader(vec.ID, "", vec.Signature), vec.Body, []string{vecSecret}, 0, ErrMissingHeader},
		{"missing signature", vecHeader(vec.ID, stamp, ""), vec.Body, []string{vecSecret}, 0, ErrMissingHeader},
		{"malformed timestamp", vecHeader(vec.ID, "yesterday", vec.Signature), vec.Body, []string{vecSecret}, 0, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := func() time.Time { return time.Unix(vec.Timestamp, 0).Add(tt.skew) }
			v, err := NewVerifier(tt.secrets, WithClock(now))
			require.NoError(t, err)
			d, err := v.Verify([]byte(tt.body), tt.h)
			if tt.want != nil {
				require.ErrorIs(t, err, tt.want)
				assert.Nil(t, d)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, vec.ID, d.ID)
			assert.Equal(t, time.Unix(vec.Timestamp, 0), d.Timestamp)
			assert.Equal(t, vec.Body, string(d.Body))
			assert.Equal(t, Digest([]byte(vec.Body)), d.Digest)
			assert.Len(t, d.Digest, 64)
		})
	}
}

func TestVerifyFillsHookdHeaders(t *testing.T) {
	now := time.Now()
	h := signedHeader(t, vecSecret, "dlv_1", now, vec.Body)
	d, err := Verify([]byte(vec.Body), h, vecSecret)
	require.NoError(t, err)
	assert.Equal(t, "dlv_1", d.ID)
	assert.Equal(t, "order.created", d.EventType)
	assert.Equal(t, "evt_1", d.EventID)
}

func TestVerifyDefaultToleranceIsFiveMinutes(t *testing.T) {
	h := signedHeader(t, vecSecret, "dlv_1", time.Now().Add(-6*time.Minute), vec.Body)
	_, err := Verify([]byte(vec.Body), h, vecSecret)
	require.ErrorIs(t, err, ErrTooOld)

	v, err := NewVerifier([]string{vecSecret}, WithTolerance(10*time.Minute))
	require.NoError(t, err)
	_, err = v.Verify([]byte(vec.Body), h)
	require.NoError(t, err)
}

func TestVerifySecrets(t *testing.T) {
	_, err := Verify([]byte(vec.Body), vecHeader(vec.ID, strconv.FormatInt(vec.Timestamp, 10), vec.Signature))
	require.ErrorIs(t, err, ErrNoSecrets)
	_, err = NewVerifier([]string{"whsec_short"})
	require.ErrorIs(t, err, signing.ErrInvalidSecret)
}
