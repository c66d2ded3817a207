package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Message is one attempt of a delivery, as a profile signs it.
type Message struct {
	// ID is the delivery ID, stable across attempts and redrives.
	ID        string
	EventID   string
	EventType string
	// Attempt is the attempt's number, 1-based within its run.
	Attempt int
	// Timestamp is the attempt's time; only its unix seconds are sent.
	Timestamp time.Time
	// Body is the raw body, exactly as sent.
	Body []byte
}

// Sign sets on h every header the profile sends for m, the signature
// made with every key (several while a rotated secret overlaps). keys
// come from Key. A zero Profile signs as Standard Webhooks.
func (p Profile) Sign(h http.Header, keys [][]byte, m Message) {
	if p.Scheme != SchemeHMACSHA256 {
		h.Set(HeaderID, m.ID)
		h.Set(HeaderTimestamp, strconv.FormatInt(m.Timestamp.Unix(), 10))
		h.Set(HeaderSignature, Signer{HMACKeys: keys}.Sign(m.ID, m.Timestamp, m.Body))
		h.Set(HeaderEventType, m.EventType)
		h.Set(HeaderEventID, m.EventID)
		h.Set(HeaderAttempt, strconv.Itoa(m.Attempt))
		return
	}
	stamp := strconv.FormatInt(m.Timestamp.Unix(), 10)
	h.Set(p.DeliveryIDHeader, m.ID)
	h.Set(p.TimestampHeader, stamp)
	h.Set(p.Header, p.Signature(keys, stamp, m.Body))
	h.Set(p.EventTypeHeader, m.EventType)
	h.Set(p.EventIDHeader, m.EventID)
	h.Set(p.AttemptHeader, strconv.Itoa(m.Attempt))
}

// Signature returns an hmac-sha256 profile's signature header value:
// prefix and encoded MAC for each key, joined by HMACSeparator. stamp is
// the timestamp header's value, signed when the content is
// ContentTimestampBody.
func (p Profile) Signature(keys [][]byte, stamp string, body []byte) string {
	sigs := make([]string, 0, len(keys))
	for _, k := range keys {
		sigs = append(sigs, p.Prefix+p.encode(p.mac(k, stamp, body)))
	}
	return strings.Join(sigs, HMACSeparator)
}

// mac is the HMAC-SHA256 of the profile's content under key.
func (p Profile) mac(key []byte, stamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	if p.Content == ContentTimestampBody {
		m.Write([]byte(stamp))
		m.Write([]byte{'.'})
	}
	m.Write(body)
	return m.Sum(nil)
}

func (p Profile) encode(mac []byte) string {
	if p.Encoding == EncodingBase64 {
		return base64.StdEncoding.EncodeToString(mac)
	}
	return hex.EncodeToString(mac)
}

func (p Profile) decode(s string) ([]byte, error) {
	if p.Encoding == EncodingBase64 {
		return base64.StdEncoding.DecodeString(s)
	}
	return hex.DecodeString(s)
}
