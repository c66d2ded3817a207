package signing

import (
	"fmt"
	"strings"
)

// Signing schemes a Profile names.
const (
	// SchemeStandardWebhooks is Standard Webhooks v1: webhook-id,
	// webhook-timestamp and webhook-signature "v1,<base64>" over
	// "{id}.{timestamp}.{body}". It takes no other profile field.
	SchemeStandardWebhooks = "standard-webhooks"
	// SchemeHMACSHA256 is an HMAC-SHA256 of the raw body, or of
	// "{timestamp}.{body}", in a header, encoding and prefix of the
	// profile's choosing, for receivers that verify a contract of their
	// own.
	SchemeHMACSHA256 = "hmac-sha256"
)

// Encodings and contents of the hmac-sha256 scheme.
const (
	EncodingHex          = "hex"
	EncodingBase64       = "base64"
	ContentBody          = "body"
	ContentTimestampBody = "timestamp.body"
)

// Headers hookd sends beside the Standard Webhooks ones; an hmac-sha256
// profile may rename them.
const (
	HeaderEventType = "hookd-event-type"
	HeaderEventID   = "hookd-event-id"
	HeaderAttempt   = "hookd-attempt"
)

// HMACSeparator joins the signatures of an hmac-sha256 header while a
// rotated secret overlaps: "sha256=<a>,sha256=<b>", each with the prefix.
const HMACSeparator = ","

// Profile limits.
const (
	MaxHeaderName = 256
	MaxPrefix     = 32
)

// Profile is how deliveries are signed and which headers carry the
// delivery's identity. The zero Profile is Standard Webhooks.
//
// For SchemeHMACSHA256, Header is required; the rest default as
// Normalize documents.
type Profile struct {
	Scheme string `json:"scheme"`
	// Header carries the signature.
	Header string `json:"header,omitempty"`
	// Prefix starts each signature, e.g. "sha256="; "" for none.
	Prefix string `json:"prefix,omitempty"`
	// Encoding of the MAC: EncodingHex (default) or EncodingBase64.
	Encoding string `json:"encoding,omitempty"`
	// Content signed: ContentBody (default), the raw body, or
	// ContentTimestampBody, "{timestamp}.{body}" with the unix seconds
	// of TimestampHeader.
	Content string `json:"content,omitempty"`
	// TimestampHeader carries the attempt's unix time in seconds
	// (default webhook-timestamp).
	TimestampHeader string `json:"timestamp_header,omitempty"`
	// DeliveryIDHeader carries the delivery ID, the same on every attempt
	// and redrive (default webhook-id).
	DeliveryIDHeader string `json:"delivery_id_header,omitempty"`
	// EventIDHeader carries the event ID (default hookd-event-id).
	EventIDHeader string `json:"event_id_header,omitempty"`
	// EventTypeHeader carries the event type (default hookd-event-type).
	EventTypeHeader string `json:"event_type_header,omitempty"`
	// AttemptHeader carries the attempt number, 1-based within the run
	// (default hookd-attempt).
	AttemptHeader string `json:"attempt_header,omitempty"`
}

// StandardWebhooks is the default profile, as Normalize returns it.
var StandardWebhooks = Profile{Scheme: SchemeStandardWebhooks}

// ProfileError is a profile field that is not valid. Field is the JSON
// name of the field ("encoding", "event_id_header").
type ProfileError struct {
	Field  string
	Reason string
}

func (e *ProfileError) Error() string { return e.Field + ": " + e.Reason }

func profileErr(field, format string, args ...any) *ProfileError {
	return &ProfileError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// field is one header-name field of a profile, its JSON name and default.
type field struct {
	name string
	v    *string
	def  string
}

func (p *Profile) nameFields() []field {
	return []field{
		{"header", &p.Header, ""},
		{"timestamp_header", &p.TimestampHeader, HeaderTimestamp},
		{"delivery_id_header", &p.DeliveryIDHeader, HeaderID},
		{"event_id_header", &p.EventIDHeader, HeaderEventID},
		{"event_type_header", &p.EventTypeHeader, HeaderEventType},
		{"attempt_header", &p.AttemptHeader, HeaderAttempt},
	}
}

// Normalize validates p and returns it with its defaults filled in: for
// hmac-sha256, encoding hex, content body, and the headers webhook-timestamp,
// webhook-id, hookd-event-id, hookd-event-type and hookd-attempt. Errors
// are *ProfileError naming the field.
//
// Header names must be HTTP tokens of at most MaxHeaderName bytes, differ
// from each other (case-insensitively) and not be one hookd sets
// otherwise or one that frames the request or concerns one hop
// (ReservedHeader). A prefix is at most MaxPrefix printable ASCII
// characters without spaces or commas (HMACSeparator).
func (p Profile) Normalize() (Profile, error) {
	switch p.Scheme {
	case SchemeStandardWebhooks:
		for _, f := range append(p.nameFields(), field{"prefix", &p.Prefix, ""}, field{"encoding", &p.Encoding, ""}, field{"content", &p.Content, ""}) {
			if *f.v != "" {
				return Profile{}, profileErr(f.name, "is not used by the %s scheme", SchemeStandardWebhooks)
			}
		}
		return p, nil
	case SchemeHMACSHA256:
	case "":
		return Profile{}, profileErr("scheme", "is required: %s or %s", SchemeStandardWebhooks, SchemeHMACSHA256)
	default:
		return Profile{}, profileErr("scheme", "must be %s or %s", SchemeStandardWebhooks, SchemeHMACSHA256)
	}
	if p.Encoding == "" {
		p.Encoding = EncodingHex
	}
	if p.Encoding != EncodingHex && p.Encoding != EncodingBase64 {
		return Profile{}, profileErr("encoding", "must be %s or %s", EncodingHex, EncodingBase64)
	}
	if p.Content == "" {
		p.Content = ContentBody
	}
	if p.Content != ContentBody && p.Content != ContentTimestampBody {
		return Profile{}, profileErr("content", "must be %s or %s", ContentBody, ContentTimestampBody)
	}
	if err := validPrefix(p.Prefix); err != nil {
		return Profile{}, err
	}
	seen := map[string]string{}
	for _, f := range p.nameFields() {
		if *f.v == "" {
			if f.def == "" {
				return Profile{}, profileErr(f.name, "is required by the %s scheme", SchemeHMACSHA256)
			}
			*f.v = f.def
		}
		if !ValidHeaderName(*f.v) {
			return Profile{}, profileErr(f.name, "must be 1 to %d characters of an HTTP token", MaxHeaderName)
		}
		lower := strings.ToLower(*f.v)
		if ReservedHeader(lower) {
			return Profile{}, profileErr(f.name, "header %s is reserved: hookd sets it otherwise or it concerns the connection", *f.v)
		}
		if other, dup := seen[lower]; dup {
			return Profile{}, profileErr(f.name, "is the same header as %s", other)
		}
		seen[lower] = f.name
	}
	return p, nil
}

func validPrefix(s string) error {
	if len(s) > MaxPrefix {
		return profileErr("prefix", "must be at most %d characters", MaxPrefix)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == HMACSeparator[0] {
			return profileErr("prefix", "must be printable ASCII without spaces or commas")
		}
	}
	return nil
}

// HeaderField is one header a profile sends: the profile's JSON field
// that names it and its name.
type HeaderField struct {
	Field string
	Name  string
}

// HeaderFields returns the headers the profile sends, as written, in the
// order of the profile's fields (a zero Profile's are Standard Webhooks',
// named by the hmac-sha256 fields they correspond to).
func (p Profile) HeaderFields() []HeaderField {
	if p.Scheme != SchemeHMACSHA256 {
		p = Profile{Header: HeaderSignature, TimestampHeader: HeaderTimestamp, DeliveryIDHeader: HeaderID,
			EventIDHeader: HeaderEventID, EventTypeHeader: HeaderEventType, AttemptHeader: HeaderAttempt}
	}
	fields := p.nameFields()
	out := make([]HeaderField, len(fields))
	for i, f := range fields {
		out[i] = HeaderField{Field: f.name, Name: *f.v}
	}
	return out
}

// reserved are the lower-case names no profile header may take: those
// hookd sets outside the profile and those that frame the request or
// concern one hop.
var reserved = map[string]bool{
	"content-type": true, "content-length": true, "content-encoding": true, "host": true,
	"transfer-encoding": true, "connection": true, "keep-alive": true, "proxy-connection": true,
	"proxy-authorization": true, "te": true, "trailer": true, "upgrade": true, "expect": true,
	"user-agent": true, "authorization": true, "traceparent": true, "tracestate": true, "cookie": true,
}

// ReservedHeader reports whether the lower-case header name is one a
// profile may not name.
func ReservedHeader(lower string) bool { return reserved[lower] }

// ValidHeaderName reports whether s is an HTTP token (RFC 9110 section
// 5.6.2) of 1 to MaxHeaderName bytes.
func ValidHeaderName(s string) bool {
	if s == "" || len(s) > MaxHeaderName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// Key returns the HMAC key of a "whsec_" secret under the profile: for
// Standard Webhooks the base64-decoded bytes after the prefix
// (DecodeSecret), for hmac-sha256 the secret's own bytes, "whsec_"
// included, as receivers of such contracts use the secret they are given.
func (p Profile) Key(secret string) ([]byte, error) {
	if p.Scheme != SchemeHMACSHA256 {
		return DecodeSecret(secret)
	}
	if secret == "" {
		return nil, fmt.Errorf("%w: empty", ErrInvalidSecret)
	}
	return []byte(secret), nil
}
