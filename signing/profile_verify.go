package signing

import (
	"crypto/hmac"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxSignatures bounds the signatures of one hmac-sha256 header that are
// checked; hookd sends one per valid secret.
const maxSignatures = 16

// verifyHMAC verifies an hmac-sha256 profile's signature header: any of
// its HMACSeparator-separated values, with the prefix, matching any key.
func (v *Verifier) verifyHMAC(body []byte, h http.Header) (string, time.Time, error) {
	p := v.Profile
	id, stamp, sigs := h.Get(p.DeliveryIDHeader), h.Get(p.TimestampHeader), h.Get(p.Header)
	switch {
	case id == "":
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, p.DeliveryIDHeader)
	case sigs == "":
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, p.Header)
	case stamp == "" && p.Content == ContentTimestampBody:
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, p.TimestampHeader)
	}
	var ts time.Time
	if secs, err := strconv.ParseInt(stamp, 10, 64); err == nil {
		ts = time.Unix(secs, 0)
	} else if p.Content == ContentTimestampBody {
		return "", time.Time{}, fmt.Errorf("%w: %s is not unix seconds", ErrMalformed, p.TimestampHeader)
	}
	if p.Content == ContentTimestampBody {
		if err := v.checkTime(ts); err != nil {
			return "", time.Time{}, err
		}
	}
	expected := make([][]byte, 0, len(v.HMACKeys))
	for _, k := range v.HMACKeys {
		expected = append(expected, p.mac(k, stamp, body))
	}
	for i, sig := range strings.Split(sigs, HMACSeparator) {
		if i == maxSignatures {
			break
		}
		encoded, ok := strings.CutPrefix(strings.TrimSpace(sig), p.Prefix)
		if !ok {
			continue
		}
		raw, err := p.decode(encoded)
		if err != nil {
			continue
		}
		for _, e := range expected {
			if hmac.Equal(raw, e) {
				return id, ts, nil
			}
		}
	}
	return "", time.Time{}, ErrNoMatch
}
