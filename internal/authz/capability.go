package authz

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Capability is one power of a tenant scope that a portal session may be
// issued without (a read-only or a restricted sign-in link). The
// platform's scope and tenant tokens have every capability.
type Capability string

// The capabilities a scope may lack. Reading (lists, deliveries, figures)
// is not one: every valid scope reads what it may see.
const (
	// ManageEndpoints: create, edit, enable, disable and delete endpoints.
	ManageEndpoints Capability = "manage_endpoints"
	// RevealSecret: show an endpoint's signing secret.
	RevealSecret Capability = "reveal_secret"
	// RotateSecret: give an endpoint a new signing secret.
	RotateSecret Capability = "rotate_secret"
	// SendTest: send a test event to an endpoint.
	SendTest Capability = "send_test"
	// Recover: resume the deliveries an open circuit or a disabled
	// endpoint holds.
	Recover Capability = "recover"
	// Redrive: resend a delivery, redrive dead letters.
	Redrive Capability = "redrive"
)

// Capabilities lists every capability, in the order the API documents.
var Capabilities = []Capability{ManageEndpoints, RevealSecret, RotateSecret, SendTest, Recover, Redrive}

// ReadOnly is what a read-only portal link drops: every capability that
// changes something. Revealing the signing secret is a read; drop it on
// its own (RevealSecret).
var ReadOnly = []Capability{ManageEndpoints, RotateSecret, SendTest, Recover, Redrive}

// ErrNotPermitted: the scope was issued without the capability an
// operation needs (a read-only portal session that tries to write).
var ErrNotPermitted = errors.New("this session was issued without the permission to do this")

// ParseCapability returns the capability named name, or an error naming
// the ones there are.
func ParseCapability(name string) (Capability, error) {
	c := Capability(name)
	if !slices.Contains(Capabilities, c) {
		names := make([]string, len(Capabilities))
		for i, c := range Capabilities {
			names[i] = string(c)
		}
		return "", fmt.Errorf("unknown capability %q; want one of %s", name, strings.Join(names, ", "))
	}
	return c, nil
}

// Without returns s lacking the capabilities in drop (on top of those it
// already lacks). The platform scope keeps every capability.
func (s Scope) Without(drop ...Capability) Scope {
	if s.platform {
		return s
	}
	out := slices.Clone(s.denied)
	for _, c := range drop {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	s.denied = out
	return s
}

// Can reports whether s has capability c.
func (s Scope) Can(c Capability) bool { return s.valid() && !slices.Contains(s.denied, c) }

// Permit returns nil when s has capability c: ErrUnauthenticated for the
// zero Scope, ErrNotPermitted for a scope issued without c. Every
// operation that changes something, or reveals a secret, calls it with
// the capability it needs, whichever surface (API, portal) it serves.
func (s Scope) Permit(c Capability) error {
	switch {
	case !s.valid():
		return ErrUnauthenticated
	case !s.Can(c):
		return ErrNotPermitted
	default:
		return nil
	}
}

// Denied lists the capabilities s lacks, sorted.
func (s Scope) Denied() []Capability { return slices.Clone(s.denied) }
