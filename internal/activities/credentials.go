package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// An endpoint's credentials (store.Credentials) are loaded with it at
// each attempt, so a changed header or token applies to the next attempt
// of every pending delivery and to redrives. They go into the request
// only: never into a log line, an error or the attempt's timeline.

// Token fetches of the OAuth 2.0 client credentials grant.
const (
	// TokenTimeout bounds one token request (and never more than what is
	// left of the attempt's own deadline).
	TokenTimeout = 10 * time.Second
	// tokenDefaultLife is how long a token without expires_in is used.
	tokenDefaultLife = 5 * time.Minute
	// tokenReadCap bounds the token endpoint's answer.
	tokenReadCap = 64 << 10
)

// setHeaders adds the endpoint's custom headers. hookd's own are set
// after them, so they always win (the API refuses those names anyway).
func setHeaders(h http.Header, c *store.Credentials) {
	if c == nil {
		return
	}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
}

// authorize sets the request's Authorization from the endpoint's auth,
// fetching an OAuth 2.0 token if it needs one.
func (a *Activities) authorize(ctx context.Context, hr *http.Request, ep *store.Endpoint) error {
	au := authOf(ep)
	if au == nil {
		return nil
	}
	switch au.Type {
	case store.AuthBearer:
		hr.Header.Set("Authorization", "Bearer "+au.Token)
	case store.AuthBasic:
		hr.SetBasicAuth(au.Username, au.Password)
	case store.AuthOAuth2:
		tok, err := a.tokens.get(ctx, a, ep.ID, au, "")
		if err != nil {
			return err
		}
		hr.Header.Set("Authorization", "Bearer "+tok)
	}
	return nil
}

func authOf(ep *store.Endpoint) *store.Auth {
	if ep == nil || ep.Credentials == nil {
		return nil
	}
	return ep.Credentials.Auth
}

// usesOAuth2 reports whether the endpoint's auth is a fetched token.
func usesOAuth2(ep *store.Endpoint) bool {
	au := authOf(ep)
	return au != nil && au.Type == store.AuthOAuth2
}

// retryUnauthorized answers a receiver's 401 to a fetched token: the
// token may have been revoked before it expired, so it fetches a new one
// (once, shared with every attempt that got the same 401) and sends the
// request again at once, within the same attempt.
func (a *Activities) retryUnauthorized(ctx context.Context, client *http.Client, hr *http.Request, ep *store.Endpoint, resp *http.Response, body []byte) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, readCap))
	resp.Body.Close()
	stale := strings.TrimPrefix(hr.Header.Get("Authorization"), "Bearer ")
	tok, err := a.tokens.get(ctx, a, ep.ID, authOf(ep), stale)
	if err != nil {
		return nil, err
	}
	again := hr.Clone(ctx)
	again.Body = io.NopCloser(bytes.NewReader(body))
	again.Header.Set("Authorization", "Bearer "+tok)
	return client.Do(again)
}

// tokenError is a failed token fetch: retryable, class auth_token, its
// message safe to show (no secret, no URL).
type tokenError struct{ msg string }

func (e *tokenError) Error() string      { return e.msg }
func (e *tokenError) errorClass() string { return ErrorClassAuthToken }

// ErrorClassAuthToken is the error class of an attempt whose OAuth 2.0
// token could not be fetched.
const ErrorClassAuthToken = "auth_token"

// classedError is a failure of what an attempt needs before its request
// (a token, a client certificate): retryable, since a change to the
// endpoint fixes it for the next attempt, with a class of its own and a
// message safe to show.
type classedError interface {
	error
	errorClass() string
}

// classedFailure is classifyError's answer for a classedError.
func classedFailure(err error) (delivery.Outcome, string, string, bool) {
	var ce classedError
	if !errors.As(err, &ce) {
		return "", "", "", false
	}
	return delivery.OutcomeRetryable, ce.errorClass(), ce.Error(), true
}

// tokenCache holds the OAuth 2.0 tokens of one worker process, per
// endpoint and grant (a changed client secret, scope or token URL is
// another key), until shortly before they expire. Concurrent attempts
// that need a token share one fetch. The zero value is ready.
type tokenCache struct {
	mu      sync.Mutex
	tokens  map[string]cachedToken
	flights map[string]*tokenFlight
}

type cachedToken struct {
	value string
	until time.Time
}

type tokenFlight struct {
	done  chan struct{}
	value string
	err   error
}

// tokenKey names an endpoint's grant without holding its secret.
func tokenKey(endpointID string, au *store.Auth) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{au.TokenURL, au.ClientID, au.ClientSecret, au.Scope, au.Audience}, "\x00")))
	return endpointID + "/" + hex.EncodeToString(sum[:16])
}

// get returns a valid token for the grant: the cached one unless it is
// stale (the token a receiver just refused), else the result of a fetch,
// joined if one is in flight. Waiting ends with ctx.
func (c *tokenCache) get(ctx context.Context, a *Activities, endpointID string, au *store.Auth, stale string) (string, error) {
	key := tokenKey(endpointID, au)
	c.mu.Lock()
	if t, ok := c.tokens[key]; ok && t.value != stale && a.now().Before(t.until) {
		c.mu.Unlock()
		return t.value, nil
	}
	f, ok := c.flights[key]
	if !ok {
		if c.flights == nil {
			c.flights = map[string]*tokenFlight{}
		}
		f = &tokenFlight{done: make(chan struct{})}
		c.flights[key] = f
		go c.fetch(a, key, *au, f)
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.value, f.err
	case <-ctx.Done():
		return "", &tokenError{"token request timed out"}
	}
}

// fetch runs one token request, detached from the attempts waiting for
// it so that one giving up does not fail the others, and caches its
// token.
func (c *tokenCache) fetch(a *Activities, key string, au store.Auth, f *tokenFlight) {
	ctx, cancel := context.WithTimeout(context.Background(), TokenTimeout)
	defer cancel()
	value, life, err := a.requestToken(ctx, au)
	now := a.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.flights, key)
	f.value, f.err = value, err
	if err == nil {
		if c.tokens == nil {
			c.tokens = map[string]cachedToken{}
		}
		for k, t := range c.tokens {
			if !now.Before(t.until) {
				delete(c.tokens, k)
			}
		}
		c.tokens[key] = cachedToken{value: value, until: now.Add(life - refreshMargin(life))}
	}
	close(f.done)
}

// refreshMargin is how long before its expiry a token is replaced: 30
// seconds, or a quarter of a short life.
func refreshMargin(life time.Duration) time.Duration {
	return min(30*time.Second, life/4)
}

// requestToken makes the client credentials grant's request (RFC 6749
// section 4.4) through the attempts' SSRF-guarded client, authenticating
// with HTTP Basic (section 2.3.1), and returns the token and its life.
func (a *Activities) requestToken(ctx context.Context, au store.Auth) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if au.Scope != "" {
		form.Set("scope", au.Scope)
	}
	if au.Audience != "" {
		form.Set("audience", au.Audience)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, au.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, &tokenError{"token URL is invalid"}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", a.userAgent)
	req.SetBasicAuth(url.QueryEscape(au.ClientID), url.QueryEscape(au.ClientSecret))
	resp, err := a.http.Do(req)
	if err != nil {
		_, class, msg := classifyError(err)
		if class == ErrorClassProxy || class == ErrorClassProxyAuth {
			// The egress proxy's failure, not the token endpoint's.
			return "", 0, &proxyError{class, "token request failed: " + msg}
		}
		return "", 0, &tokenError{"token request failed: " + msg}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, tokenReadCap))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", 0, &tokenError{"token endpoint answered HTTP " + strconv.Itoa(resp.StatusCode)}
	}
	if err != nil {
		return "", 0, &tokenError{"token endpoint's answer could not be read"}
	}
	var tr struct {
		AccessToken string          `json:"access_token"`
		TokenType   string          `json:"token_type"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(raw, &tr); err != nil {
		return "", 0, &tokenError{"token endpoint's answer is not a JSON token response"}
	}
	switch {
	case tr.AccessToken == "":
		return "", 0, &tokenError{"token endpoint's answer has no access_token"}
	case tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "bearer"):
		return "", 0, &tokenError{"token endpoint's token is not a bearer token"}
	case strings.ContainsFunc(tr.AccessToken, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", 0, &tokenError{"token endpoint's access_token is not a valid header value"}
	}
	life := tokenDefaultLife
	if secs, err := strconv.ParseFloat(strings.Trim(string(tr.ExpiresIn), `"`), 64); err == nil && secs > 0 {
		life = time.Duration(min(secs, 365*24*3600) * float64(time.Second))
	}
	return tr.AccessToken, life, nil
}
