package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"github.com/hookd/hookd/internal/activities"
)

// Resolver looks up a host's addresses; net.DefaultResolver.LookupNetIP
// is the production one.
type Resolver func(ctx context.Context, network, host string) ([]netip.Addr, error)

// resolveTimeout bounds the lookup of an http endpoint's host.
const resolveTimeout = 3 * time.Second

// URLPolicy returns the production API's endpoint URL policy. https is
// required unless the host is an address in allow, or a name whose every
// address is in allow; an https URL naming a literal address the delivery
// guard refuses is refused at once (hostnames are checked by the dialer at
// every attempt). Errors never repeat the URL. A nil resolve uses the
// system resolver.
func URLPolicy(allow []netip.Prefix, resolve Resolver) func(string) error {
	if resolve == nil {
		resolve = net.DefaultResolver.LookupNetIP
	}
	guard := activities.Guard{Allow: allow}
	return func(raw string) error {
		u, err := url.Parse(raw)
		if err != nil {
			return errors.New("cannot parse")
		}
		host := u.Hostname()
		if addr, err := netip.ParseAddr(host); err == nil {
			if u.Scheme == "https" || allowed(allow, addr) {
				return guard.Check(addr)
			}
			return errors.New("must use https: http is allowed only for destinations in the allow-list")
		}
		if u.Scheme == "https" {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
		defer cancel()
		addrs, err := resolve(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return fmt.Errorf("must use https: http is allowed only for destinations in the allow-list, and host %q did not resolve", host)
		}
		for _, a := range addrs {
			if !allowed(allow, a) {
				return errors.New("must use https: http is allowed only for destinations in the allow-list")
			}
		}
		return nil
	}
}

func allowed(allow []netip.Prefix, addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range allow {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
