package apiclient

import "github.com/hookd/hookd/apiclient/internal/wire"

// SigningProfile is how an endpoint's attempts are signed: Scheme
// "standard-webhooks" (no other field) or "hmac-sha256" with the
// signature Header (required), Prefix, Encoding ("hex" or "base64"),
// Content ("body" or "timestamp.body") and the names of the timestamp,
// delivery-ID, event-ID, event-type and attempt headers. Answers show
// every field, defaults filled in.
type SigningProfile struct {
	Scheme           string `json:"scheme"`
	Header           string `json:"header,omitempty"`
	Prefix           string `json:"prefix,omitempty"`
	Encoding         string `json:"encoding,omitempty"`
	Content          string `json:"content,omitempty"`
	TimestampHeader  string `json:"timestamp_header,omitempty"`
	DeliveryIDHeader string `json:"delivery_id_header,omitempty"`
	EventIDHeader    string `json:"event_id_header,omitempty"`
	EventTypeHeader  string `json:"event_type_header,omitempty"`
	AttemptHeader    string `json:"attempt_header,omitempty"`
}

// wire is p as the document's SigningProfile (nil for nil).
func (p *SigningProfile) wire() *wire.SigningProfile {
	if p == nil {
		return nil
	}
	out := &wire.SigningProfile{
		Scheme: wire.SigningProfileScheme(p.Scheme), Header: nonEmpty(p.Header), Prefix: nonEmpty(p.Prefix),
		TimestampHeader: nonEmpty(p.TimestampHeader), DeliveryIDHeader: nonEmpty(p.DeliveryIDHeader),
		EventIDHeader: nonEmpty(p.EventIDHeader), EventTypeHeader: nonEmpty(p.EventTypeHeader), AttemptHeader: nonEmpty(p.AttemptHeader),
	}
	if p.Encoding != "" {
		e := wire.SigningProfileEncoding(p.Encoding)
		out.Encoding = &e
	}
	if p.Content != "" {
		c := wire.SigningProfileContent(p.Content)
		out.Content = &c
	}
	return out
}
