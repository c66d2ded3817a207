package portal

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ParseFrameAncestors checks a comma-separated list of origins that may
// frame the portal (Config.FrameAncestors): each an http or https origin
// (scheme, host and optional port, nothing after it), a host's leftmost
// label may be "*" (https://*.example.com). Empty is none.
func ParseFrameAncestors(raw string) ([]string, error) {
	var out []string
	for item := range strings.SplitSeq(raw, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		u, err := url.Parse(item)
		switch {
		case err != nil, u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
			return nil, fmt.Errorf("portal frame ancestor %q: want an origin such as https://app.example.com", item)
		case u.User != nil, u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "":
			return nil, fmt.Errorf("portal frame ancestor %q: want only scheme, host and port, nothing after them", item)
		case strings.ContainsAny(u.Host, "'; \"") || strings.Contains(strings.TrimPrefix(u.Host, "*."), "*"):
			return nil, fmt.Errorf("portal frame ancestor %q: a host may only start with *.", item)
		}
		out = append(out, u.Scheme+"://"+strings.ToLower(u.Host))
	}
	return out, nil
}

// framing is how the portal may be framed: by no page (the default), or
// by the listed origins, in which case its cookies are the ones a
// cross-site frame keeps.
type framing struct {
	ancestors []string
}

// embeddable reports whether some origin may frame the portal.
func (f framing) embeddable() bool { return len(f.ancestors) > 0 }

// frameAncestors is the CSP directive naming who may frame the portal.
func (f framing) frameAncestors() string {
	if !f.embeddable() {
		return "frame-ancestors 'none'"
	}
	return "frame-ancestors " + strings.Join(f.ancestors, " ")
}

// cookie returns a portal cookie as the framing needs it. Unframed, it is
// SameSite=Strict, Secure over https. Framed by another site, a
// SameSite=Strict or Lax cookie is never sent, and a browser that
// restricts third-party cookies (Chromium's default) keeps only a
// partitioned one (CHIPS): SameSite=None; Secure; Partitioned, keyed to
// the top-level site that frames the portal. Secure needs https, except
// on loopback hosts, which browsers treat as secure (http://localhost,
// http://127.0.0.1).
func (f framing) cookie(r *http.Request, c *http.Cookie) *http.Cookie {
	c.HttpOnly = true
	if !f.embeddable() {
		c.SameSite, c.Secure = http.SameSiteStrictMode, r.TLS != nil
		return c
	}
	c.SameSite, c.Secure, c.Partitioned = http.SameSiteNoneMode, true, true
	return c
}
