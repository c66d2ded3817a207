package signing

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzVerify: verification never panics on hostile headers and bodies, and
// whatever hookd signs verifies.
func FuzzVerify(f *testing.F) {
	f.Add([]byte(vecBody), vecID, "1614265330", vecSig)
	f.Add([]byte(""), "", "", "")
	f.Add([]byte("x"), "id", "-1", "v1,")
	f.Add([]byte("x"), "id", "99999999999999999999", "v1,AAAA v1a,BBBB ,,, v1")
	key, err := DecodeSecret(vecSecret)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1614265330, 0)
	v := &Verifier{HMACKeys: [][]byte{key}, Now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, body []byte, id, stamp, sig string) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, stamp)
		h.Set(HeaderSignature, sig)
		_, _, _ = v.Verify(body, h)
		if id == "" {
			return
		}
		h.Set(HeaderTimestamp, "1614265330")
		h.Set(HeaderSignature, Signer{HMACKeys: [][]byte{key}}.Sign(id, now, body))
		if _, _, err := v.Verify(body, h); err != nil {
			t.Fatalf("own signature refused: %v", err)
		}
	})
}

// FuzzVerifyProfile: an hmac-sha256 profile's verification never panics
// on hostile headers, and whatever it signs verifies.
func FuzzVerifyProfile(f *testing.F) {
	f.Add([]byte(vecBody), vecID, "1614265330", "sha256="+vecBodyHex, false)
	f.Add([]byte(""), "", "", "", true)
	f.Add([]byte("x"), "id", "-1", "sha256=,,,sha256=zz, ,sha256", true)
	f.Add([]byte("x"), "id", "99999999999999999999", "sha256="+strings.Repeat("0", 64), true)
	now := time.Unix(1614265330, 0)
	f.Fuzz(func(t *testing.T, body []byte, id, stamp, sig string, withTime bool) {
		p := Profile{Scheme: SchemeHMACSHA256, Header: "X-Sig", Prefix: "sha256=", TimestampHeader: "X-Time"}
		if withTime {
			p.Content, p.Encoding = ContentTimestampBody, EncodingBase64
		}
		v, err := NewProfileVerifier(p, vecSecret)
		if err != nil {
			t.Fatal(err)
		}
		v.Now = func() time.Time { return now }
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set("X-Time", stamp)
		h.Set("X-Sig", sig)
		_, _, _ = v.Verify(body, h)
		if id == "" || strings.ContainsAny(id, "\r\n") {
			return
		}
		v.Profile.Sign(h, v.HMACKeys, Message{ID: id, Timestamp: now, Body: body})
		if _, _, err := v.Verify(body, h); err != nil {
			t.Fatalf("own signature refused: %v", err)
		}
	})
}
