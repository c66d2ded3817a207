package signing

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// Header names defined by Standard Webhooks.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Signature version prefixes.
const (
	VersionHMAC    = "v1"
	VersionEd25519 = "v1a"
)

// Content returns the bytes that are signed: "{id}.{timestamp}.{body}".
func Content(id string, ts time.Time, body []byte) []byte {
	stamp := strconv.FormatInt(ts.Unix(), 10)
	buf := make([]byte, 0, len(id)+len(stamp)+len(body)+2)
	buf = append(buf, id...)
	buf = append(buf, '.')
	buf = append(buf, stamp...)
	buf = append(buf, '.')
	return append(buf, body...)
}

// SignHMAC returns the "v1,<base64>" signature of body under the HMAC key.
func SignHMAC(key []byte, id string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(Content(id, ts, body))
	return VersionHMAC + "," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// SignEd25519 returns the "v1a,<base64>" signature of body under priv.
func SignEd25519(priv ed25519.PrivateKey, id string, ts time.Time, body []byte) string {
	return VersionEd25519 + "," + base64.StdEncoding.EncodeToString(ed25519.Sign(priv, Content(id, ts, body)))
}

// Signer signs one message with every key it holds. Several keys exist while
// a secret rotation overlaps; the receiver accepts any matching signature.
type Signer struct {
	HMACKeys    [][]byte
	Ed25519Keys []ed25519.PrivateKey
}

// Sign returns the webhook-signature header value: every signature,
// space-separated.
func (s Signer) Sign(id string, ts time.Time, body []byte) string {
	sigs := make([]string, 0, len(s.HMACKeys)+len(s.Ed25519Keys))
	for _, k := range s.HMACKeys {
		sigs = append(sigs, SignHMAC(k, id, ts, body))
	}
	for _, k := range s.Ed25519Keys {
		sigs = append(sigs, SignEd25519(k, id, ts, body))
	}
	return strings.Join(sigs, " ")
}
