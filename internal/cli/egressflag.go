package cli

import (
	"net/url"

	"github.com/hookd/hookd/internal/activities"
)

// egressProxyFlag defines --egress-proxy, the forward proxy deliveries
// and token requests leave through, as given.
func egressProxyFlag(fs envFlags, raw *string) {
	fs.secret(raw, "egress-proxy", "HOOKD_EGRESS_PROXY", "forward proxy every delivery attempt and OAuth2 token request leaves through: http://[user:password@]host:port, https://... or socks5://...; destinations are still resolved and checked here, then tunnelled to by IP (empty: direct)")
}

// parseEgressProxy checks --egress-proxy as given (empty: none); its
// error never repeats the value, which may hold a password.
func parseEgressProxy(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := activities.ParseEgressProxy(raw)
	if err != nil {
		return nil, usagef("egress-proxy: %w", err)
	}
	return u, nil
}
