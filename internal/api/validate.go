package api

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hookd/hookd/internal/contentfilter"
	"github.com/hookd/hookd/internal/opevents"
)

var (
	eventIDPattern   = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,255}$`)
	eventTypePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._:-]{0,127}$`)
)

func validateEventID(id string) error {
	if !eventIDPattern.MatchString(id) {
		return invalid("event_id", "must be 1 to 255 characters of A-Z a-z 0-9 . _ : -")
	}
	return nil
}

func validateEventType(field, t string) error {
	if !eventTypePattern.MatchString(t) {
		return invalid(field, "must be 1 to 128 characters of A-Z a-z 0-9 . _ : -, not starting with a separator")
	}
	return nil
}

// validatePostedType checks the type of an event posted through the API:
// hookd's own namespace is reserved, so subscribers can trust a
// hookd.endpoint.unhealthy event came from hookd.
func validatePostedType(t string) error {
	if err := validateEventType("type", t); err != nil {
		return err
	}
	if opevents.IsReserved(strings.ToLower(t)) {
		return invalid("type", "%q types are reserved for hookd's own events", opevents.Reserved)
	}
	return nil
}

// Metadata limits.
const (
	maxMetadataKeys  = 16
	maxMetadataKey   = 128
	maxMetadataValue = 1 << 10
)

func validateMetadata(m map[string]string) error {
	if len(m) > maxMetadataKeys {
		return invalid("metadata", "must have at most %d keys", maxMetadataKeys)
	}
	for k, v := range m {
		switch {
		case k == "":
			return invalid("metadata", "keys must not be empty")
		case len(k) > maxMetadataKey:
			return invalid("metadata", "key %q... exceeds %d bytes", truncate(k, 32), maxMetadataKey)
		case len(v) > maxMetadataValue:
			return invalid("metadata", "value of %q exceeds %d bytes", k, maxMetadataValue)
		}
	}
	return nil
}

// truncate is the first n bytes of s, cut back to whole UTF-8 characters,
// so a message names an over-long value without repeating it.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// validPort reports whether an URL's port is absent or 1 to 65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// validateFilter checks an endpoint's event-type filter: exact types or
// prefix wildcards such as "order.*".
func validateFilter(types []string) error {
	for _, t := range types {
		if t == "*" {
			continue
		}
		if err := validateEventType("event_types", strings.TrimSuffix(t, ".*")); err != nil {
			return err
		}
	}
	return nil
}

// validateContentFilter checks an endpoint's content filter compiles
// ("" is none): a 400 naming "filter" carries CEL's message, positions
// included.
func validateContentFilter(expr string) error {
	if expr == "" {
		return nil
	}
	_, err := contentfilter.Compile(expr)
	var ce *contentfilter.Error
	if errors.As(err, &ce) {
		return invalid("filter", "%s", ce.Message)
	}
	return err
}

// validateURL checks an endpoint URL is an absolute http(s) URL with a host
// and no credentials, then applies the deployment's policy.
func (s *Server) validateURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return invalid("url", "is required")
	case err != nil, !u.IsAbs(), u.Host == "", u.Hostname() == "":
		return invalid("url", "must be an absolute URL with a host")
	case u.Scheme != "http" && u.Scheme != "https":
		return invalid("url", "must use http or https")
	case u.User != nil:
		return invalid("url", "must not contain credentials")
	case u.Fragment != "":
		return invalid("url", "must not contain a fragment")
	case len(raw) > 2048:
		return invalid("url", "must be at most 2048 characters")
	case !validPort(u.Port()):
		return invalid("url", "port must be 1 to 65535")
	}
	if s.urlPolicy != nil {
		if err := s.urlPolicy(raw); err != nil {
			return invalid("url", "%s", err.Error())
		}
	}
	return nil
}
