package signing

import (
	"crypto/ed25519"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The vector published with the Standard Webhooks specification.
const (
	vecSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vecID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vecStamp  = 1614265330
	vecBody   = `{"test": 2432232314}`
	vecSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func vecKey(t *testing.T) []byte {
	t.Helper()
	key, err := DecodeSecret(vecSecret)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func TestSignHMACMatchesSpecVector(t *testing.T) {
	got := SignHMAC(vecKey(t), vecID, time.Unix(vecStamp, 0), []byte(vecBody))
	if got != vecSig {
		t.Fatalf("signature = %s, want %s", got, vecSig)
	}
}

func vecHeader(sig string) http.Header {
	h := http.Header{}
	h.Set(HeaderID, vecID)
	h.Set(HeaderTimestamp, "1614265330")
	h.Set(HeaderSignature, sig)
	return h
}

func TestVerify(t *testing.T) {
	at := func(d time.Duration) func() time.Time {
		return func() time.Time { return time.Unix(vecStamp, 0).Add(d) }
	}
	other, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := DecodeSecret(other)
	tests := []struct {
		name string
		h    http.Header
		body string
		keys [][]byte
		now  func() time.Time
		want error
	}{
		{"valid", vecHeader(vecSig), vecBody, nil, at(0), nil},
		{"one of several signatures", vecHeader("v1,AAAA " + vecSig), vecBody, nil, at(0), nil},
		{"second of two secrets", vecHeader(vecSig), vecBody, [][]byte{otherKey}, at(0), nil},
		{"tampered body", vecHeader(vecSig), `{"test": 2432232315}`, nil, at(0), ErrNoMatch},
		{"wrong version", vecHeader("v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="), vecBody, nil, at(0), ErrNoMatch},
		{"too old", vecHeader(vecSig), vecBody, nil, at(6 * time.Minute), ErrTooOld},
		{"too new", vecHeader(vecSig), vecBody, nil, at(-6 * time.Minute), ErrTooNew},
		{"missing id", func() http.Header { h := vecHeader(vecSig); h.Del(HeaderID); return h }(), vecBody, nil, at(0), ErrMissingHeader},
		{"malformed timestamp", func() http.Header { h := vecHeader(vecSig); h.Set(HeaderTimestamp, "soon"); return h }(), vecBody, nil, at(0), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &Verifier{HMACKeys: append(tc.keys, vecKey(t)), Now: tc.now}
			id, _, err := v.Verify([]byte(tc.body), tc.h)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if err == nil && id != vecID {
				t.Fatalf("id = %q", id)
			}
		})
	}
}

func TestEd25519RoundTrip(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	body := []byte(`{"a":1}`)
	h := http.Header{}
	h.Set(HeaderID, "msg_1")
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, Signer{Ed25519Keys: []ed25519.PrivateKey{priv}}.Sign("msg_1", now, body))
	v := &Verifier{PublicKeys: []ed25519.PublicKey{pub}}
	if _, _, err := v.Verify(body, h); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if _, _, err := v.Verify([]byte(`{"a":2}`), h); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("tampered body: err = %v", err)
	}
}

func TestDecodeSecret(t *testing.T) {
	s, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if k, err := DecodeSecret(s); err != nil || len(k) != 32 {
		t.Fatalf("DecodeSecret(new) = %d bytes, %v", len(k), err)
	}
	for _, bad := range []string{"whsec_!!!", "whsec_c2hvcnQ=", ""} {
		if _, err := DecodeSecret(bad); !errors.Is(err, ErrInvalidSecret) {
			t.Errorf("DecodeSecret(%q) err = %v", bad, err)
		}
	}
}
