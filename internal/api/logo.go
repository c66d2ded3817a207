package api

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hookd/hookd/internal/store"
)

// MaxLogoBytes caps a logo image stored in hookd.
const MaxLogoBytes = 256 << 10

// Limits of the portal's branding texts.
const (
	maxProductName = 64
	maxBrandingURL = 2048
)

// logoTypes are the media types of a logo image hookd stores, each with
// the check that the bytes are one.
var logoTypes = map[string]func([]byte) error{
	"image/png":     magic("\x89PNG\r\n\x1a\n"),
	"image/jpeg":    magic("\xff\xd8\xff"),
	"image/svg+xml": checkSVG,
}

func magic(prefix string) func([]byte) error {
	return func(b []byte) error {
		if !bytes.HasPrefix(b, []byte(prefix)) {
			return errors.New("its bytes are not of the media type it names")
		}
		return nil
	}
}

// checkSVG accepts an SVG document whose root is <svg> without scripts,
// event handlers, foreign objects, references outside the document or a
// DOCTYPE. hookd serves SVG logos with a CSP that runs no script
// anyway (portal); this refuses them before they are stored.
func checkSVG(b []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if root {
				return errors.New("an SVG image needs an <svg> root element")
			}
			return nil
		}
		if err != nil {
			return errors.New("not a well-formed SVG document")
		}
		switch t := tok.(type) {
		case xml.Directive:
			return errors.New("an SVG logo may not have a DOCTYPE")
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if root && name != "svg" {
				return errors.New("an SVG image needs an <svg> root element")
			}
			root = false
			if name == "script" || name == "foreignobject" {
				return errors.New("an SVG logo may not contain <" + t.Name.Local + ">")
			}
			for _, a := range t.Attr {
				attr := strings.ToLower(a.Name.Local)
				if strings.HasPrefix(attr, "on") {
					return errors.New("an SVG logo may not have event handlers (" + a.Name.Local + ")")
				}
				if attr == "href" && !strings.HasPrefix(a.Value, "#") {
					return errors.New("an SVG logo may only link within itself (href=\"#...\")")
				}
			}
		}
	}
}

// parseLogo reads a logo field: "" for none, an https URL, or a data: URL
// of a PNG, JPEG or SVG image of at most MaxLogoBytes, which hookd stores.
func parseLogo(field, raw string) (store.Logo, error) {
	switch {
	case raw == "":
		return store.Logo{}, nil
	case strings.HasPrefix(raw, "data:"):
		meta, data, ok := strings.Cut(strings.TrimPrefix(raw, "data:"), ",")
		typ, isBase64 := strings.CutSuffix(meta, ";base64")
		check := logoTypes[typ]
		if !ok || !isBase64 || check == nil {
			return store.Logo{}, invalid(field, "a data: URL must be data:image/png;base64,..., image/jpeg or image/svg+xml")
		}
		image, err := base64.StdEncoding.DecodeString(data)
		switch {
		case err != nil:
			return store.Logo{}, invalid(field, "the data: URL's base64 does not decode")
		case len(image) > MaxLogoBytes:
			return store.Logo{}, invalid(field, "the image is %d bytes; a logo is at most %s", len(image), byteSize(MaxLogoBytes))
		case len(image) == 0:
			return store.Logo{}, invalid(field, "the image is empty")
		}
		if err := check(image); err != nil {
			return store.Logo{}, invalid(field, "%s: %s", typ, err)
		}
		return store.Logo{ContentType: typ, Image: image}, nil
	default:
		if _, err := parseHTTPSURL(field, raw); err != nil {
			return store.Logo{}, err
		}
		return store.Logo{URL: raw}, nil
	}
}

// logoDataURL is a stored logo as a data: URL, as parseLogo reads it.
func logoDataURL(l store.Logo) string {
	return "data:" + l.ContentType + ";base64," + base64.StdEncoding.EncodeToString(l.Image)
}

// logoKind says what a logo is, for logs (never its bytes or URL).
func logoKind(l store.Logo) string {
	switch {
	case l.Stored():
		return l.ContentType
	case l.URL != "":
		return "url"
	}
	return "none"
}

// hostPattern is a host name or IP address and optional port, nothing a
// CSP source would read otherwise.
var hostPattern = regexp.MustCompile(`^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$`)

// parseHTTPSURL checks an absolute https URL of at most maxBrandingURL
// bytes with a plain host and no credentials or fragment.
func parseHTTPSURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > maxBrandingURL:
		return nil, invalid(field, "must be at most %d bytes", maxBrandingURL)
	case err != nil, u.Scheme != "https", u.Host == "", u.Opaque != "":
		return nil, invalid(field, "must be an https URL such as https://example.com/logo.png")
	case u.User != nil, u.Fragment != "", !hostPattern.MatchString(u.Host), strings.ContainsAny(raw, " \t\r\n'\";,"):
		return nil, invalid(field, "must be an https URL with a plain host and no credentials, fragment, spaces, quotes, commas or semicolons")
	}
	return u, nil
}

// checkProductName accepts "" (the default) or a name of at most
// maxProductName characters without control characters.
func checkProductName(name string) error {
	if utf8.RuneCountInString(name) > maxProductName {
		return invalid("product_name", "must be at most %d characters", maxProductName)
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 || strings.TrimSpace(name) != name {
		return invalid("product_name", "must have no control characters and no leading or trailing spaces")
	}
	return nil
}

var accentPattern = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// ParseAccentColor reads an accent colour: "" (the default) or #rrggbb,
// returned in lower case.
func ParseAccentColor(raw string) (string, error) {
	if raw != "" && !accentPattern.MatchString(raw) {
		return "", invalid("accent_color", "must be a colour as #rrggbb, such as #0a7d5a")
	}
	return strings.ToLower(raw), nil
}
