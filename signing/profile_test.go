package signing

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Vectors computed outside Go (Python's hmac module) from the formulas:
// the key is the secret string itself.
const (
	vecBodyHex           = "80ec8a89ce3cd22133a1066caecb4d04fea7467657c8514d717ec42c38a5c94c"
	vecStampBodyBase64   = "LjffXUoCjFGn8xM9ZK4eMA0sLJAPGx1J1Daa0lMPiWQ="
	mailFrameSignature   = "MailFrame-Signature"
	mailFrameDeliveryID  = "X-MailFrame-Delivery-Id"
	mailFrameEventID     = "X-MailFrame-Event-Id"
	mailFrameAttempt     = "X-MailFrame-Attempt"
	postfleetSignature   = "Postfleet-Signature"
	postfleetTimestamp   = "Postfleet-Timestamp"
	vecStampString       = "1614265330"
	vecMessageEventID    = "evt_1"
	vecMessageEventType  = "order.created"
	vecMessageAttemptNum = 3
)

func mailFrame(t *testing.T) Profile {
	t.Helper()
	p, err := Profile{Scheme: SchemeHMACSHA256, Header: mailFrameSignature, Prefix: "sha256=",
		DeliveryIDHeader: mailFrameDeliveryID, EventIDHeader: mailFrameEventID, AttemptHeader: mailFrameAttempt}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func postfleet(t *testing.T) Profile {
	t.Helper()
	p, err := Profile{Scheme: SchemeHMACSHA256, Header: postfleetSignature, Encoding: EncodingBase64,
		Content: ContentTimestampBody, TimestampHeader: postfleetTimestamp}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func vecMessage() Message {
	return Message{ID: vecID, EventID: vecMessageEventID, EventType: vecMessageEventType, Attempt: vecMessageAttemptNum,
		Timestamp: time.Unix(vecStamp, 0), Body: []byte(vecBody)}
}

func TestNormalizeDefaults(t *testing.T) {
	p := mailFrame(t)
	want := Profile{Scheme: SchemeHMACSHA256, Header: mailFrameSignature, Prefix: "sha256=", Encoding: EncodingHex, Content: ContentBody,
		TimestampHeader: HeaderTimestamp, DeliveryIDHeader: mailFrameDeliveryID, EventIDHeader: mailFrameEventID,
		EventTypeHeader: HeaderEventType, AttemptHeader: mailFrameAttempt}
	if p != want {
		t.Fatalf("normalized = %+v\nwant %+v", p, want)
	}
	if got, err := StandardWebhooks.Normalize(); err != nil || got != StandardWebhooks {
		t.Fatalf("standard = %+v, %v", got, err)
	}
}

func TestNormalizeNamesTheField(t *testing.T) {
	hm := func(mod func(*Profile)) Profile {
		p := Profile{Scheme: SchemeHMACSHA256, Header: "X-Sig"}
		mod(&p)
		return p
	}
	tests := []struct {
		p     Profile
		field string
	}{
		{Profile{}, "scheme"},
		{Profile{Scheme: "hmac-sha1"}, "scheme"},
		{Profile{Scheme: SchemeStandardWebhooks, Header: "X-Sig"}, "header"},
		{Profile{Scheme: SchemeStandardWebhooks, Encoding: "hex"}, "encoding"},
		{Profile{Scheme: SchemeStandardWebhooks, AttemptHeader: "X-A"}, "attempt_header"},
		{Profile{Scheme: SchemeHMACSHA256}, "header"},
		{hm(func(p *Profile) { p.Encoding = "base32" }), "encoding"},
		{hm(func(p *Profile) { p.Content = "id.timestamp.body" }), "content"},
		{hm(func(p *Profile) { p.Prefix = "sha 256=" }), "prefix"},
		{hm(func(p *Profile) { p.Prefix = "a,b" }), "prefix"},
		{hm(func(p *Profile) { p.Prefix = strings.Repeat("x", 33) }), "prefix"},
		{hm(func(p *Profile) { p.Header = "X Sig" }), "header"},
		{hm(func(p *Profile) { p.Header = "Content-Length" }), "header"},
		{hm(func(p *Profile) { p.TimestampHeader = "Host" }), "timestamp_header"},
		{hm(func(p *Profile) { p.EventIDHeader = "Transfer-Encoding" }), "event_id_header"},
		{hm(func(p *Profile) { p.DeliveryIDHeader = "authorization" }), "delivery_id_header"},
		{hm(func(p *Profile) { p.AttemptHeader = "x-sig" }), "attempt_header"},
		{hm(func(p *Profile) { p.EventTypeHeader = "hookd-event-id" }), "event_type_header"},
		{hm(func(p *Profile) { p.TimestampHeader = "x\r\ny" }), "timestamp_header"},
	}
	for _, tc := range tests {
		_, err := tc.p.Normalize()
		var pe *ProfileError
		if !errors.As(err, &pe) || pe.Field != tc.field {
			t.Errorf("Normalize(%+v) = %v, want an error naming %s", tc.p, err, tc.field)
		}
	}
}

func TestStandardProfileSignsAsSigner(t *testing.T) {
	h := http.Header{}
	StandardWebhooks.Sign(h, [][]byte{vecKey(t)}, vecMessage())
	want := http.Header{}
	want.Set("webhook-id", vecID)
	want.Set("webhook-timestamp", vecStampString)
	want.Set("webhook-signature", vecSig)
	want.Set("hookd-event-type", vecMessageEventType)
	want.Set("hookd-event-id", vecMessageEventID)
	want.Set("hookd-attempt", "3")
	if !equalHeaders(h, want) {
		t.Fatalf("headers = %v, want %v", h, want)
	}
	if got := (Profile{}).HeaderFields(); len(got) != 6 || got[0] != (HeaderField{"header", HeaderSignature}) {
		t.Fatalf("zero profile's headers = %v", got)
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if len(b[k]) != 1 || len(v) != 1 || b[k][0] != v[0] {
			return false
		}
	}
	return true
}

func TestHMACProfilesMatchVectors(t *testing.T) {
	key, err := mailFrame(t).Key(vecSecret)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	mailFrame(t).Sign(h, [][]byte{key}, vecMessage())
	for name, want := range map[string]string{
		mailFrameSignature: "sha256=" + vecBodyHex, mailFrameDeliveryID: vecID, mailFrameEventID: vecMessageEventID,
		mailFrameAttempt: "3", HeaderEventType: vecMessageEventType, HeaderTimestamp: vecStampString,
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if len(h) != 6 {
		t.Errorf("headers = %v, want 6", h)
	}
	h = http.Header{}
	postfleet(t).Sign(h, [][]byte{key}, vecMessage())
	if got := h.Get(postfleetSignature); got != vecStampBodyBase64 {
		t.Errorf("postfleet signature = %q, want %q", got, vecStampBodyBase64)
	}
	if got := h.Get(postfleetTimestamp); got != vecStampString {
		t.Errorf("postfleet timestamp = %q", got)
	}
}

func TestHMACRotationSignsWithEveryKey(t *testing.T) {
	other, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	p := mailFrame(t)
	h := http.Header{}
	p.Sign(h, [][]byte{[]byte(other), []byte(vecSecret)}, vecMessage())
	sigs := strings.Split(h.Get(mailFrameSignature), HMACSeparator)
	if len(sigs) != 2 || sigs[1] != "sha256="+vecBodyHex || !strings.HasPrefix(sigs[0], "sha256=") {
		t.Fatalf("signatures = %q", sigs)
	}
	for _, secret := range []string{other, vecSecret} {
		v, err := NewProfileVerifier(p, secret)
		if err != nil {
			t.Fatal(err)
		}
		if id, _, err := v.Verify([]byte(vecBody), h); err != nil || id != vecID {
			t.Fatalf("verify under one secret: %q, %v", id, err)
		}
	}
}

func TestVerifyHMAC(t *testing.T) {
	at := func(d time.Duration) func() time.Time {
		return func() time.Time { return time.Unix(vecStamp, 0).Add(d) }
	}
	signed := func(p Profile) http.Header {
		h := http.Header{}
		p.Sign(h, [][]byte{[]byte(vecSecret)}, vecMessage())
		return h
	}
	with := func(h http.Header, name, v string) http.Header {
		h = h.Clone()
		if v == "" {
			h.Del(name)
		} else {
			h.Set(name, v)
		}
		return h
	}
	mf, pf := mailFrame(t), postfleet(t)
	tests := []struct {
		name string
		p    Profile
		h    http.Header
		body string
		now  func() time.Time
		want error
	}{
		{"mailframe", mf, signed(mf), vecBody, at(0), nil},
		{"mailframe ignores the clock", mf, signed(mf), vecBody, at(24 * time.Hour), nil},
		{"mailframe upper-case hex", mf, with(signed(mf), mailFrameSignature, "sha256="+strings.ToUpper(vecBodyHex)), vecBody, at(0), nil},
		{"one of several", mf, with(signed(mf), mailFrameSignature, "sha256=00, sha256="+vecBodyHex), vecBody, at(0), nil},
		{"without the prefix", mf, with(signed(mf), mailFrameSignature, vecBodyHex), vecBody, at(0), ErrNoMatch},
		{"tampered body", mf, signed(mf), vecBody + " ", at(0), ErrNoMatch},
		{"missing signature", mf, with(signed(mf), mailFrameSignature, ""), vecBody, at(0), ErrMissingHeader},
		{"missing delivery id", mf, with(signed(mf), mailFrameDeliveryID, ""), vecBody, at(0), ErrMissingHeader},
		{"postfleet", pf, signed(pf), vecBody, at(0), nil},
		{"postfleet too old", pf, signed(pf), vecBody, at(6 * time.Minute), ErrTooOld},
		{"postfleet too new", pf, signed(pf), vecBody, at(-6 * time.Minute), ErrTooNew},
		{"postfleet other timestamp", pf, with(signed(pf), postfleetTimestamp, "1614265331"), vecBody, at(0), ErrNoMatch},
		{"postfleet missing timestamp", pf, with(signed(pf), postfleetTimestamp, ""), vecBody, at(0), ErrMissingHeader},
		{"postfleet malformed timestamp", pf, with(signed(pf), postfleetTimestamp, "soon"), vecBody, at(0), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewProfileVerifier(tc.p, vecSecret)
			if err != nil {
				t.Fatal(err)
			}
			v.Now = tc.now
			id, ts, err := v.Verify([]byte(tc.body), tc.h)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if err == nil && (id != vecID || ts.Unix() != vecStamp) {
				t.Fatalf("id, ts = %q, %v", id, ts)
			}
		})
	}
}

func TestNewProfileVerifierRefusesABadProfile(t *testing.T) {
	_, err := NewProfileVerifier(Profile{Scheme: SchemeHMACSHA256}, vecSecret)
	var pe *ProfileError
	if !errors.As(err, &pe) || pe.Field != "header" {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewProfileVerifier(mailFrame(t), ""); !errors.Is(err, ErrInvalidSecret) {
		t.Fatalf("empty secret: %v", err)
	}
}
