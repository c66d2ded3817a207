package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hookd/hookd/signing"
)

// parseSigning reads a signing profile as the flags take it: a JSON
// object such as {"scheme": "hmac-sha256", "header": "X-Signature"}, or a
// scheme's name alone ("standard-webhooks"). It returns the profile
// normalized; an error names the field ("signing.encoding").
func parseSigning(s string) (signing.Profile, error) {
	s = strings.TrimSpace(s)
	var p signing.Profile
	if strings.HasPrefix(s, "{") {
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return signing.Profile{}, fmt.Errorf("signing: not a JSON signing profile: %w", err)
		}
	} else {
		p.Scheme = s
	}
	n, err := p.Normalize()
	var pe *signing.ProfileError
	if errors.As(err, &pe) {
		return signing.Profile{}, fmt.Errorf("signing.%s: %s", pe.Field, pe.Reason)
	}
	return n, err
}

// signingValue is a flag taking a signing profile (parseSigning).
type signingValue struct {
	p   *signing.Profile
	raw string
}

func (v *signingValue) String() string { return v.raw }

func (v *signingValue) Set(s string) error {
	p, err := parseSigning(s)
	if err != nil {
		return err
	}
	*v.p, v.raw = p, s
	return nil
}

func (v *signingValue) Type() string { return "profile" }

// defaultSigningFlag defines --default-signing, the profile of endpoints
// created without one.
func defaultSigningFlag(fs envFlags, p *signing.Profile) {
	fs.Var(&signingValue{p: p}, "default-signing", `signing profile of endpoints created without one: a JSON profile such as {"scheme":"hmac-sha256","header":"X-Signature","prefix":"sha256="}, or "standard-webhooks" (the default); existing endpoints keep theirs ($HOOKD_DEFAULT_SIGNING)`)
	fs.bind("default-signing", "HOOKD_DEFAULT_SIGNING")
}
