package api

import (
	"errors"
	"net/textproto"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

// An endpoint's signing profile (signing.Profile) chooses the signature
// scheme and the names of the headers that carry the delivery's identity.
// It is no secret: the API shows it whole, defaults filled in. An
// endpoint created without one gets the deployment's default
// (Config.DefaultSigning), Standard Webhooks unless set.

// signingNotObject is the refusal of a signing field that is not an
// object, null included: a profile is replaced, never removed.
const signingNotObject = `must be an object such as {"scheme": "standard-webhooks"}`

// signingView is the profile as the API shows it: the zero profile is
// Standard Webhooks.
func signingView(p signing.Profile) signing.Profile {
	if p.Scheme == "" {
		return signing.StandardWebhooks
	}
	return p
}

// signingOut is a profile as the API shows it.
func signingOut(p signing.Profile) wire.SigningProfile {
	return wire.SigningProfile{
		Scheme: wire.SigningProfileScheme(p.Scheme), Header: p.Header, Prefix: p.Prefix,
		Encoding: wire.SigningProfileEncoding(p.Encoding), Content: wire.SigningProfileContent(p.Content),
		TimestampHeader: p.TimestampHeader, DeliveryIDHeader: p.DeliveryIDHeader, EventIDHeader: p.EventIDHeader,
		EventTypeHeader: p.EventTypeHeader, AttemptHeader: p.AttemptHeader,
	}
}

// SigningOf is a profile as the API shows it (signingOut) back as the
// profile it is.
func SigningOf(p wire.SigningProfile) signing.Profile {
	return signing.Profile{
		Scheme: string(p.Scheme), Header: p.Header, Prefix: p.Prefix, Encoding: string(p.Encoding), Content: string(p.Content),
		TimestampHeader: p.TimestampHeader, DeliveryIDHeader: p.DeliveryIDHeader, EventIDHeader: p.EventIDHeader,
		EventTypeHeader: p.EventTypeHeader, AttemptHeader: p.AttemptHeader,
	}
}

// ValidateSigning normalizes a signing profile, naming a bad field
// "signing.<field>" in a 400.
func ValidateSigning(p signing.Profile) (signing.Profile, error) {
	n, err := p.Normalize()
	var pe *signing.ProfileError
	if errors.As(err, &pe) {
		return signing.Profile{}, invalid("signing."+pe.Field, "%s", pe.Reason)
	}
	return n, err
}

// checkSigningHeaders refuses a profile header that is also one of the
// endpoint's custom headers, naming the field the patch changed: the
// profile's when it set one, else the custom header.
func checkSigningHeaders(p wire.EndpointPatch, ep *store.Endpoint) error {
	if ep.Signing.Scheme != signing.SchemeHMACSHA256 || ep.Credentials == nil {
		return nil
	}
	for _, f := range ep.Signing.HeaderFields() {
		canon := textproto.CanonicalMIMEHeaderKey(f.Name)
		if _, ok := ep.Credentials.Headers[canon]; !ok {
			continue
		}
		if !p.Signing.IsZero() {
			return invalid("signing."+f.Field, "header %s is also one of the endpoint's custom headers", f.Name)
		}
		return invalid("headers."+canon, "header %s is set by the endpoint's signing profile (signing.%s)", canon, f.Field)
	}
	return nil
}

// DefaultSigning is the profile an endpoint created without one gets,
// as the API shows it.
func (s *Server) DefaultSigning() signing.Profile { return signingView(s.defaultSigning) }
