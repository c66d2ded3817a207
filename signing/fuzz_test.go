package signing

import (
	"net/http"
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
