package portal

import (
	"net/http"
	"strings"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/signing"
)

// signingForm is the endpoint form's "Signature format" section: the
// scheme and, for hmac-sha256, the profile's fields, by form field name
// signing_<json field>. With Standard Webhooks the other fields are not
// sent.
type signingForm struct {
	SigningScheme, SigningHeader, SigningPrefix, SigningEncoding, SigningContent string
	SigningTimestampHeader, SigningDeliveryIDHeader                              string
	SigningEventIDHeader, SigningEventTypeHeader, SigningAttemptHeader           string
}

// signingFields are the form's inputs with the profile fields they hold.
func (f *signingForm) fields() []struct {
	name string
	v    *string
} {
	return []struct {
		name string
		v    *string
	}{
		{"signing_scheme", &f.SigningScheme}, {"signing_header", &f.SigningHeader}, {"signing_prefix", &f.SigningPrefix},
		{"signing_encoding", &f.SigningEncoding}, {"signing_content", &f.SigningContent},
		{"signing_timestamp_header", &f.SigningTimestampHeader}, {"signing_delivery_id_header", &f.SigningDeliveryIDHeader},
		{"signing_event_id_header", &f.SigningEventIDHeader}, {"signing_event_type_header", &f.SigningEventTypeHeader},
		{"signing_attempt_header", &f.SigningAttemptHeader},
	}
}

// signingFormOf is the section showing profile p; the hmac-sha256 fields
// of a Standard Webhooks profile show the defaults they would take.
func signingFormOf(p signing.Profile) signingForm {
	if p.Scheme != signing.SchemeHMACSHA256 {
		p = signing.Profile{Scheme: signing.SchemeStandardWebhooks, Encoding: signing.EncodingHex, Content: signing.ContentBody,
			TimestampHeader: signing.HeaderTimestamp, DeliveryIDHeader: signing.HeaderID, EventIDHeader: signing.HeaderEventID,
			EventTypeHeader: signing.HeaderEventType, AttemptHeader: signing.HeaderAttempt}
	}
	return signingForm{SigningScheme: p.Scheme, SigningHeader: p.Header, SigningPrefix: p.Prefix, SigningEncoding: p.Encoding,
		SigningContent: p.Content, SigningTimestampHeader: p.TimestampHeader, SigningDeliveryIDHeader: p.DeliveryIDHeader,
		SigningEventIDHeader: p.EventIDHeader, SigningEventTypeHeader: p.EventTypeHeader, SigningAttemptHeader: p.AttemptHeader}
}

func readSigningForm(r *http.Request) signingForm {
	var f signingForm
	for _, fl := range f.fields() {
		*fl.v = strings.TrimSpace(r.PostFormValue(fl.name))
	}
	return f
}

// patch sets the section's profile on p; an empty scheme (a form
// without the section) leaves the endpoint's as it is.
func (f signingForm) patch(p *api.EndpointPatch) {
	switch f.SigningScheme {
	case "":
	case signing.SchemeHMACSHA256:
		p.Signing = wire.Set(wire.SigningProfile{Scheme: wire.SigningProfileScheme(f.SigningScheme), Header: f.SigningHeader,
			Prefix: f.SigningPrefix, Encoding: wire.SigningProfileEncoding(f.SigningEncoding), Content: wire.SigningProfileContent(f.SigningContent),
			TimestampHeader: f.SigningTimestampHeader, DeliveryIDHeader: f.SigningDeliveryIDHeader, EventIDHeader: f.SigningEventIDHeader,
			EventTypeHeader: f.SigningEventTypeHeader, AttemptHeader: f.SigningAttemptHeader})
	default:
		p.Signing = wire.Set(wire.SigningProfile{Scheme: wire.SigningProfileScheme(f.SigningScheme)})
	}
}

// HMAC reports whether the section shows the hmac-sha256 scheme.
func (f signingForm) HMAC() bool { return f.SigningScheme == signing.SchemeHMACSHA256 }

// signingError is the form field an API error about the profile is
// shown at: signing.<field> at signing_<field>.
func signingError(e *api.Error) *api.Error {
	if field, ok := strings.CutPrefix(e.Field, "signing."); ok {
		return &api.Error{Code: e.Code, Field: "signing_" + field, Message: e.Message}
	}
	return e
}

// signingSummary describes an endpoint's profile in a line, for its page.
func signingSummary(p signing.Profile) string {
	if p.Scheme != signing.SchemeHMACSHA256 {
		return "Standard Webhooks (webhook-signature)"
	}
	content := "the raw body"
	if p.Content == signing.ContentTimestampBody {
		content = p.TimestampHeader + "." + "body"
	}
	return "HMAC-SHA256 in " + p.Header + ": " + p.Prefix + "<" + p.Encoding + "> of " + content
}
