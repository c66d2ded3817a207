package portal

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// Sessions keeps the portal's sign-in links and sessions (store.Portal).
type Sessions interface {
	ExchangePortalLink(ctx context.Context, linkHash string, session store.PortalGrant) (store.PortalGrant, error)
	PortalSession(ctx context.Context, hash string, now time.Time) (store.PortalGrant, error)
	DeletePortalSession(ctx context.Context, hash string) error
}

// SessionLifetime is how long a portal session lasts when its link does
// not say (api.DefaultPortalSessionTTL).
const SessionLifetime = api.DefaultPortalSessionTTL

// Reason is the reason a redrive from the portal records; its actor is
// "tenant:<id>:portal".
const Reason = "portal"

// maxForm bounds a form's body.
const maxForm = 64 << 10

// cookieName is the session cookie's name.
const cookieName = "hookd_portal"

// session is the signed-in session of a request.
type session struct {
	tenant string
	// csrf is the token every form of the session carries.
	csrf string
	hash string
	// scope is what the session may see and do.
	scope authz.Scope
}

type sessionKey struct{}

func sessionOf(ctx context.Context) session {
	s, _ := ctx.Value(sessionKey{}).(session)
	return s
}

// csrfToken is the CSRF token of a session: derived from its secret
// token, so it needs no storage, and one-way, so a page showing it
// reveals nothing of the cookie.
func csrfToken(sessionToken string) string {
	sum := sha256.Sum256([]byte("hookd portal csrf\x00" + sessionToken))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// loginCookie carries the sign-in form's nonce from the link's page to
// its POST.
const loginCookie = "hookd_portal_login"

// signin is the data of the "signin" page.
type signin struct{ Link, Nonce string }

// loginPage is where a sign-in link lands: a page whose button POSTs the
// link's token. The GET consumes nothing, so a mail scanner or a browser
// prefetching the link does not use it up. The page sets a nonce cookie
// its form repeats, so a POST made from another site (login CSRF: signing
// a victim into the attacker's portal) is refused.
func (p *Portal) loginPage(w http.ResponseWriter, r *http.Request) {
	link := r.URL.Query().Get("t")
	if !strings.HasPrefix(link, authz.PortalLinkPrefix) {
		p.linkInvalid(w, r)
		return
	}
	nonce, err := authz.NewPortalSessionToken()
	if err != nil {
		p.fail(w, r, err)
		return
	}
	nonce = strings.TrimPrefix(nonce, authz.PortalSessionPrefix)
	http.SetCookie(w, p.framing.cookie(r, &http.Cookie{
		Name: loginCookie, Value: nonce, Path: api.PortalLoginPath, MaxAge: int(api.PortalLinkLifetime.Seconds()),
	}))
	p.render(w, r, http.StatusOK, "signin", signin{Link: link, Nonce: nonce})
}

// login exchanges a sign-in link, POSTed by the link's page, for a
// session: it sets the session cookie and sends the browser on to the
// portal. A used, expired or unknown link gets a page saying so; a POST
// without the page's nonce (from another site, or a stale tab) consumes
// nothing and asks to open the link again.
func (p *Portal) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	c, cerr := r.Cookie(loginCookie)
	nonce := r.PostFormValue("nonce")
	if cerr != nil || nonce == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(nonce)) != 1 || !sameOrigin(r) {
		p.render(w, r, http.StatusForbidden, "message", message{
			Title: "Open your sign-in link again",
			Text:  "This sign-in was not sent from the page your link opened. The link is still valid: open it again and press Sign in.",
		})
		return
	}
	http.SetCookie(w, p.framing.cookie(r, &http.Cookie{Name: loginCookie, Value: "", Path: api.PortalLoginPath, MaxAge: -1}))
	link := r.PostFormValue("t")
	token, err := authz.NewPortalSessionToken()
	if err != nil {
		p.fail(w, r, err)
		return
	}
	now := p.now().UTC()
	var grant store.PortalGrant
	if strings.HasPrefix(link, authz.PortalLinkPrefix) {
		grant = store.PortalGrant{Hash: authz.HashToken(token), CreatedAt: now, ExpiresAt: now.Add(SessionLifetime)}
		grant, err = p.sessions.ExchangePortalLink(r.Context(), authz.HashToken(link), grant)
	}
	tenant := grant.TenantID
	switch {
	case tenant == "" && (err == nil || errors.Is(err, store.ErrNotFound)):
		p.linkInvalid(w, r)
		return
	case err != nil:
		p.fail(w, r, err)
		return
	}
	http.SetCookie(w, p.framing.cookie(r, &http.Cookie{
		Name: cookieName, Value: token, Path: Prefix + "/", MaxAge: int(grant.ExpiresAt.Sub(now).Seconds()),
	}))
	p.log.Info("portal session started", "tenant_id", tenant, "expires_at", grant.ExpiresAt, "denied", grant.Denied)
	// A page rather than a 303, so the session cookie is surely sent on
	// the navigation it starts.
	p.render(w, r, http.StatusOK, "signedin", nil)
}

// linkInvalid answers a used, expired or unknown sign-in link.
func (p *Portal) linkInvalid(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusGone, "message", message{
		Title: "This sign-in link is no longer valid",
		Text:  "A sign-in link works once, for 10 minutes. This one was already used or has expired. Ask for a new link where you got this one.",
	})
}

// sameOrigin reports whether a request the browser names the origin of
// comes from this server (a request naming none passes; the nonce still
// has to match).
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

// logout ends the session.
func (p *Portal) logout(w http.ResponseWriter, r *http.Request) {
	if err := p.sessions.DeletePortalSession(r.Context(), sessionOf(r.Context()).hash); err != nil {
		p.fail(w, r, err)
		return
	}
	p.clearCookie(w, r)
	signedOut := r.WithContext(context.WithValue(r.Context(), sessionKey{}, session{}))
	p.render(w, signedOut, http.StatusOK, "message", message{Title: "Signed out", Text: "Your portal session has ended."})
}

func (p *Portal) clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, p.framing.cookie(r, &http.Cookie{Name: cookieName, Value: "", Path: Prefix + "/", MaxAge: -1}))
}

// requireSession resolves the session cookie to the tenant's scope and
// puts both in the request context, and checks the CSRF token of every
// request that is not a GET or HEAD. Without a valid session it answers
// with a page saying how to sign in again.
func (p *Portal) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, err := p.lookupSession(r)
		if errors.Is(err, store.ErrNotFound) {
			p.clearCookie(w, r)
			p.render(w, r, http.StatusUnauthorized, "message", message{
				Title: "You are signed out",
				Text:  "Your portal session has ended or was revoked. Open a new sign-in link to continue.",
			})
			return
		}
		if err != nil {
			p.fail(w, r, err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !validCSRF(r, sess.csrf) {
			p.render(w, r, http.StatusForbidden, "message", message{
				Title: "This form has expired",
				Text:  "The form was not sent from this portal session. Go back, reload the page and try again.",
			})
			return
		}
		next.ServeHTTP(w, r.WithContext(sessionContext(r.Context(), sess)))
	})
}

// sessionContext is ctx carrying the session and its scope.
func sessionContext(ctx context.Context, sess session) context.Context {
	return context.WithValue(authz.NewContext(ctx, sess.scope), sessionKey{}, sess)
}

// lookupSession returns the valid session the request's cookie names,
// or store.ErrNotFound.
func (p *Portal) lookupSession(r *http.Request) (session, error) {
	c, err := r.Cookie(cookieName)
	if err != nil || !strings.HasPrefix(c.Value, authz.PortalSessionPrefix) {
		return session{}, store.ErrNotFound
	}
	grant, err := p.sessions.PortalSession(r.Context(), authz.HashToken(c.Value), p.now())
	if err != nil {
		return session{}, err
	}
	return session{tenant: grant.TenantID, csrf: csrfToken(c.Value), hash: grant.Hash, scope: scopeOf(grant)}, nil
}

// validCSRF checks the form's CSRF token and, when the browser names the
// request's origin, that it is this server.
func validCSRF(r *http.Request, want string) bool {
	if !sameOrigin(r) {
		return false
	}
	got := r.PostFormValue("csrf")
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// scopeOf is the scope of a portal session: its tenant, without the
// capabilities its link was issued without. A name this hookd does not
// know (a newer one wrote it) is dropped with the rest: a session never
// gains a power its link did not give.
func scopeOf(grant store.PortalGrant) authz.Scope {
	sc := authz.ForTenant(grant.TenantID, "tenant:"+grant.TenantID+":portal")
	for _, name := range grant.Denied {
		c, err := authz.ParseCapability(name)
		if err != nil {
			return sc.Without(authz.Capabilities...)
		}
		sc = sc.Without(c)
	}
	return sc
}
