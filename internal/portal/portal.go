// Package portal is hookd's consumer portal: web pages on which one
// tenant (a customer of the platform) manages its endpoints and debugs its
// deliveries and dead letters, without asking the platform's support.
//
// A browser signs in with a single-use link the platform asks for
// (POST /v1/tenants/{id}/portal); the link starts a session held in an
// HttpOnly cookie (SameSite=Strict; partitioned SameSite=None when the
// portal may be framed, see Config.FrameAncestors) and stored hashed
// (store.Portal). The session resolves to authz.ForTenant(id, "portal"),
// without the capabilities its link dropped, and every page calls
// the API's service methods (api.Server) in that scope, so the portal
// applies the API's own rules and validation, never a copy of them. Every
// state-changing request carries a per-session CSRF token.
//
// Templates and assets are embedded (no build step, no CDN). Times are
// rendered as UTC in <time datetime> and shown in the viewer's time zone
// by a few lines of JavaScript.
package portal

import (
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/authz"
)

// Prefix is the path the portal is served under.
const Prefix = "/portal"

//go:embed templates assets
var files embed.FS

// Config holds the portal's collaborators.
type Config struct {
	// API serves every operation the portal offers. Required.
	API *api.Server
	// Sessions keeps sign-in links and sessions (store.Store). Required.
	Sessions Sessions
	// Version is hookd's version, shown in the headers a delivery sent.
	Version string
	// FrameAncestors are the origins that may show the portal in a frame
	// (ParseFrameAncestors); none keeps it out of every frame. Set, the
	// portal's cookies are partitioned SameSite=None; Secure ones, which
	// a cross-site frame keeps.
	FrameAncestors []string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Portal serves the portal's pages under Prefix.
type Portal struct {
	api      *api.Server
	sessions Sessions
	version  string
	framing  framing
	log      *slog.Logger
	pages    pages
	now      func() time.Time
	router   chi.Router
}

// Validate checks the fields New needs: API and Sessions.
func (cfg Config) Validate() error {
	switch {
	case cfg.API == nil:
		return errors.New("portal: missing API server")
	case cfg.Sessions == nil:
		return errors.New("portal: missing session store")
	}
	return nil
}

// New validates cfg and returns the portal.
func New(cfg Config) (*Portal, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Portal{api: cfg.API, sessions: cfg.Sessions, version: cfg.Version, log: cfg.Logger, now: time.Now,
		framing: framing{ancestors: cfg.FrameAncestors}}
	if p.log == nil {
		p.log = slog.Default()
	}
	var err error
	if p.pages, err = parsePages(); err != nil {
		return nil, err
	}
	p.router = p.routes()
	return p, nil
}

// Routes are the portal's routes, for tests that walk them.
func (p *Portal) Routes() chi.Routes { return p.router }

// ServeHTTP implements http.Handler for paths under Prefix.
func (p *Portal) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.router.ServeHTTP(w, r) }

func (p *Portal) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(p.secureHeaders)
	assets, _ := fs.Sub(files, "assets")
	r.Get(Prefix+"/assets/*", http.StripPrefix(Prefix+"/assets/", cacheAssets(http.FileServerFS(assets))).ServeHTTP)
	r.Get(LogoPath, p.serveLogo)
	r.Get(BrandCSSPath, p.serveBrandCSS)
	r.Get(api.PortalLoginPath, p.loginPage)
	r.Post(api.PortalLoginPath, p.login)
	r.Group(func(r chi.Router) {
		r.Use(p.requireSession)
		r.Post(Prefix+"/logout", p.logout)
		r.Get(Prefix+"/", p.listEndpoints)
		r.Get(Prefix+"/overview", p.showOverview)
		r.Get(Prefix+"/deliveries", p.listDeliveries)
		r.Get(Prefix+"/deliveries/{id}", p.showDelivery)
		r.Get(Prefix+"/dead-letters", p.listDeadLetters)
		r.Get(Prefix+"/event-types", p.listEventTypes)
		r.Get(Prefix+"/dead-letters/redrive/{job}", p.redriveJob)
		r.Get(Prefix+"/endpoints/{id}", p.showEndpoint)
		// What changes something, or reveals a secret, needs its
		// capability (the service methods check it again).
		r.With(p.needs(authz.ManageEndpoints)).Group(func(r chi.Router) {
			r.Get(Prefix+"/endpoints/new", p.newEndpoint)
			r.Post(Prefix+"/endpoints", p.createEndpoint)
			r.Post(Prefix+"/endpoints/{id}", p.updateEndpoint)
			r.Get(Prefix+"/endpoints/{id}/edit", p.editEndpoint)
			r.Post(Prefix+"/endpoints/{id}/enabled", p.setEnabled)
			r.Get(Prefix+"/endpoints/{id}/delete", p.confirmDelete)
			r.Post(Prefix+"/endpoints/{id}/delete", p.deleteEndpoint)
		})
		r.With(p.needs(authz.RevealSecret)).Post(Prefix+"/endpoints/{id}/secret", p.revealSecret)
		r.With(p.needs(authz.RotateSecret)).Post(Prefix+"/endpoints/{id}/rotate", p.rotateSecret)
		r.With(p.needs(authz.SendTest)).Post(Prefix+"/endpoints/{id}/test", p.testEndpoint)
		r.With(p.needs(authz.Recover)).Post(Prefix+"/endpoints/{id}/recover", p.recoverEndpoint)
		r.With(p.needs(authz.Redrive)).Post(Prefix+"/deliveries/{id}/resend", p.resend)
		r.With(p.needs(authz.Redrive)).Post(Prefix+"/dead-letters/redrive", p.redrive)
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { p.fail(w, r, errNoPage) })
	return r
}

// needs refuses, with 403, a request of a session issued without c.
func (p *Portal) needs(c authz.Capability) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := authz.FromContext(r.Context()).Permit(c); err != nil {
				p.fail(w, r, &api.Error{Code: api.CodeForbidden, Message: "Your sign-in link does not allow this (" + string(c) + ")."})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// secureHeaders keeps the portal's pages out of frames (but those of the
// configured frame ancestors), caches and other origins' scripts, and
// sends no Referer to other origins (same-origin requests keep theirs, so
// a form's Origin header names this server).
func (p *Portal) secureHeaders(next http.Handler) http.Handler {
	csp := p.contentPolicy("") // a page with a logo URL adds its origin (renderView)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		if !p.framing.embeddable() {
			h.Set("X-Frame-Options", "DENY")
		}
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// cacheAssets lets browsers keep the embedded assets for an hour.
func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}
