package cli

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/signing"
)

// signingFlags are an endpoint's signing profile: --signing whole (JSON
// or a scheme's name), or field by field with --signing-<field>. The API
// validates it and names a bad field.
type signingFlags struct {
	whole  string
	fields apiclient.SigningProfile
}

// signingFieldFlags are the --signing-<field> flags and the profile
// fields they set.
func (sf *signingFlags) fieldFlags() []struct {
	name, usage string
	v           *string
} {
	p := &sf.fields
	return []struct {
		name, usage string
		v           *string
	}{
		{"signing-scheme", "signature scheme: standard-webhooks or hmac-sha256 (the default when another --signing-* flag is given)", (*string)(&p.Scheme)},
		{"signing-header", "hmac-sha256: the signature header, such as MailFrame-Signature", &p.Header},
		{"signing-prefix", "hmac-sha256: what starts each signature, such as sha256=", &p.Prefix},
		{"signing-encoding", "hmac-sha256: hex (default) or base64", (*string)(&p.Encoding)},
		{"signing-content", "hmac-sha256: what is signed: body (default) or timestamp.body", (*string)(&p.Content)},
		{"signing-timestamp-header", "hmac-sha256: the timestamp header (default webhook-timestamp)", &p.TimestampHeader},
		{"signing-delivery-id-header", "hmac-sha256: the delivery ID header (default webhook-id)", &p.DeliveryIDHeader},
		{"signing-event-id-header", "hmac-sha256: the event ID header (default hookd-event-id)", &p.EventIDHeader},
		{"signing-event-type-header", "hmac-sha256: the event type header (default hookd-event-type)", &p.EventTypeHeader},
		{"signing-attempt-header", "hmac-sha256: the attempt number header (default hookd-attempt)", &p.AttemptHeader},
	}
}

func (sf *signingFlags) register(fs *pflag.FlagSet, update bool) {
	what := ""
	if update {
		what = "; replaces the whole profile"
	}
	fs.StringVar(&sf.whole, "signing", "", `signing profile: JSON such as '{"scheme":"hmac-sha256","header":"X-Signature","prefix":"sha256="}' or standard-webhooks`+what+" (default: the deployment's)")
	for _, f := range sf.fieldFlags() {
		fs.StringVar(f.v, f.name, "", f.usage)
	}
}

// input adds the profile the flags give to in.
func (sf *signingFlags) input(fs *pflag.FlagSet, in *apiclient.EndpointInput) error {
	anyField := false
	for _, f := range sf.fieldFlags() {
		anyField = anyField || fs.Changed(f.name)
	}
	switch {
	case fs.Changed("signing") && anyField:
		return usagef("--signing and --signing-* flags do not go together")
	case anyField:
		p := sf.fields
		if p.Scheme == "" {
			p.Scheme = signing.SchemeHMACSHA256
		}
		in.Signing = &p
	case fs.Changed("signing"):
		var p apiclient.SigningProfile
		if s := strings.TrimSpace(sf.whole); strings.HasPrefix(s, "{") {
			dec := json.NewDecoder(bytes.NewReader([]byte(s)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&p); err != nil {
				return usagef("--signing: not a JSON signing profile: %v", err)
			}
		} else {
			p.Scheme = wire.SigningProfileScheme(s)
		}
		in.Signing = &p
	}
	return nil
}

// signingLine describes a profile in a line: the scheme and, for
// hmac-sha256, what it signs in which header.
func signingLine(p apiclient.SigningProfile) string {
	if p.Scheme != signing.SchemeHMACSHA256 {
		return string(p.Scheme)
	}
	content := "the body"
	if p.Content == signing.ContentTimestampBody {
		content = p.TimestampHeader + "." + "body"
	}
	return string(p.Scheme) + " (" + p.Header + ": " + p.Prefix + "<" + string(p.Encoding) + "> of " + content + "; id " + p.DeliveryIDHeader +
		", event " + p.EventIDHeader + ", attempt " + p.AttemptHeader + ")"
}
