package authz

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// TokenPrefix starts every tenant token, so a leaked one is recognisable
// (and secret scanners can match it).
const TokenPrefix = "htk_"

// APIKeyPrefix starts the platform API keys hookd makes up (hookd dev's,
// kept in its data dir), for the same reason.
const APIKeyPrefix = "hk_"

// NewToken returns a new tenant token: TokenPrefix and 32 random bytes.
func NewToken() (string, error) { return newSecret(TokenPrefix) }

// HashToken is how a token is stored and looked up: its hex SHA-256. A
// token carries 256 random bits, so a fast hash is enough.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// TokenTenants resolves a token's hash to its tenant (store.Store).
type TokenTenants interface {
	// TenantOfToken returns the tenant of an unexpired token, or
	// store.ErrNotFound.
	TenantOfToken(ctx context.Context, hash string, now time.Time) (string, error)
}

// Authenticator turns a bearer credential into a Scope: one of the
// platform's API keys, or a tenant token.
type Authenticator struct {
	keys   [][]byte
	tokens TokenTenants
	now    func() time.Time
}

// NewAuthenticator accepts the platform's API keys (at least one, none
// empty) and resolves tenant tokens through tokens.
func NewAuthenticator(keys []string, tokens TokenTenants) (*Authenticator, error) {
	if len(keys) == 0 {
		return nil, errors.New("at least one API key is required")
	}
	if tokens == nil {
		return nil, errors.New("missing token store")
	}
	a := &Authenticator{tokens: tokens, now: time.Now}
	for _, k := range keys {
		if k == "" {
			return nil, errors.New("empty API key")
		}
		if strings.HasPrefix(k, TokenPrefix) {
			return nil, fmt.Errorf("an API key must not start with %q, the tenant tokens' prefix", TokenPrefix)
		}
		a.keys = append(a.keys, []byte(k))
	}
	return a, nil
}

// Authenticate returns the scope of credential (the bearer token of a
// request): ErrUnauthenticated when it is empty, unknown, expired or
// revoked; another error when the token store failed.
func (a *Authenticator) Authenticate(ctx context.Context, credential string) (Scope, error) {
	if strings.HasPrefix(credential, TokenPrefix) {
		hash := HashToken(credential)
		tenant, err := a.tokens.TenantOfToken(ctx, hash, a.now())
		if errors.Is(err, store.ErrNotFound) {
			return Scope{}, ErrUnauthenticated
		}
		if err != nil {
			return Scope{}, fmt.Errorf("authenticate: %w", err)
		}
		return ForTenant(tenant, "tenant:"+tenant+":token:"+hash[:8]), nil
	}
	match := 0
	for _, k := range a.keys {
		match |= subtle.ConstantTimeCompare([]byte(credential), k)
	}
	if credential == "" || match != 1 {
		return Scope{}, ErrUnauthenticated
	}
	return Platform("api-key:" + HashToken(credential)[:8]), nil
}
