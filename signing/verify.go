package signing

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is how far a webhook-timestamp may be from the receiver's
// clock, in either direction.
const DefaultTolerance = 5 * time.Minute

// Verification errors. Use errors.Is to tell them apart.
var (
	ErrMissingHeader = errors.New("missing webhook header")
	ErrMalformed     = errors.New("malformed webhook header")
	ErrTooOld        = errors.New("webhook timestamp too old")
	ErrTooNew        = errors.New("webhook timestamp too new")
	ErrNoMatch       = errors.New("no matching webhook signature")
)

// Verifier checks Standard Webhooks signatures.
type Verifier struct {
	// HMACKeys are the symmetric keys accepted (several during a rotation).
	HMACKeys [][]byte
	// PublicKeys are the ed25519 keys accepted for "v1a" signatures.
	PublicKeys []ed25519.PublicKey
	// Tolerance bounds the timestamp skew; zero means DefaultTolerance.
	Tolerance time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Profile is the signing profile verified, normalized; the zero
	// Profile is Standard Webhooks. For SchemeHMACSHA256 the HMACKeys
	// come from Profile.Key and PublicKeys are not used.
	Profile Profile
}

// NewVerifier returns a Verifier for the given "whsec_" secrets.
func NewVerifier(secrets ...string) (*Verifier, error) {
	v := &Verifier{}
	for _, s := range secrets {
		key, err := DecodeSecret(s)
		if err != nil {
			return nil, err
		}
		v.HMACKeys = append(v.HMACKeys, key)
	}
	return v, nil
}

// NewProfileVerifier returns a Verifier of profile p (normalized here)
// for the given "whsec_" secrets.
func NewProfileVerifier(p Profile, secrets ...string) (*Verifier, error) {
	p, err := p.Normalize()
	if err != nil {
		return nil, fmt.Errorf("signing profile: %w", err)
	}
	v := &Verifier{Profile: p}
	for _, s := range secrets {
		key, err := p.Key(s)
		if err != nil {
			return nil, err
		}
		v.HMACKeys = append(v.HMACKeys, key)
	}
	return v, nil
}

// Verify checks the signature headers against the raw body and returns the
// message's delivery ID (webhook-id) and timestamp. The comparison is
// constant-time. An hmac-sha256 profile's timestamp is checked against the
// tolerance when it is signed (ContentTimestampBody); otherwise it is
// returned as sent, zero when absent or malformed.
func (v *Verifier) Verify(body []byte, h http.Header) (id string, ts time.Time, err error) {
	if v.Profile.Scheme == SchemeHMACSHA256 {
		return v.verifyHMAC(body, h)
	}
	id, stamp, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	switch {
	case id == "":
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, HeaderID)
	case stamp == "":
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, HeaderTimestamp)
	case sigs == "":
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeader, HeaderSignature)
	}
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s is not unix seconds", ErrMalformed, HeaderTimestamp)
	}
	ts = time.Unix(secs, 0)
	if err := v.checkTime(ts); err != nil {
		return "", time.Time{}, err
	}
	content := Content(id, ts, body)
	var expected [][]byte
	for _, k := range v.HMACKeys {
		mac := hmac.New(sha256.New, k)
		mac.Write(content)
		expected = append(expected, mac.Sum(nil))
	}
	for _, sig := range strings.Fields(sigs) {
		version, encoded, ok := strings.Cut(sig, ",")
		if !ok {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil {
			continue
		}
		switch version {
		case VersionHMAC:
			for _, e := range expected {
				if hmac.Equal(raw, e) {
					return id, ts, nil
				}
			}
		case VersionEd25519:
			for _, pub := range v.PublicKeys {
				if ed25519.Verify(pub, content, raw) {
					return id, ts, nil
				}
			}
		}
	}
	return "", time.Time{}, ErrNoMatch
}

func (v *Verifier) checkTime(ts time.Time) error {
	tol := v.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	if ts.Before(now.Add(-tol)) {
		return ErrTooOld
	}
	if ts.After(now.Add(tol)) {
		return ErrTooNew
	}
	return nil
}
