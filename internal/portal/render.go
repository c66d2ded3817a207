package portal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/stats"
)

// pages holds one template per page, each joined with the layout.
type pages map[string]*template.Template

func parsePages() (pages, error) {
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("portal: templates: %w", err)
	}
	out := pages{}
	for _, name := range names {
		base := strings.TrimSuffix(path.Base(name), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html", name)
		if err != nil {
			return nil, fmt.Errorf("portal: template %s: %w", base, err)
		}
		out[base] = t
	}
	return out, nil
}

// view is what every page template gets: the page's own data in Data,
// and what the layout shows around it.
type view struct {
	// Section is the nav entry to mark current: endpoints, deliveries or
	// dead-letters.
	Section string
	// Tenant and CSRF are set on pages of a signed-in session.
	Tenant, CSRF string
	// Can says, by authz.Capability, what the session may do: pages offer
	// only those controls (the operations refuse the rest whatever a
	// page shows).
	Can map[string]bool
	// Unavailable shows the banner saying delivery history cannot be
	// read (Temporal is unreachable).
	Unavailable bool
	// Notice and Alert are one-line messages: an action done, or failed.
	Notice, Alert string
	// Brand is how the page presents the portal (the platform's settings,
	// the tenant's overrides).
	Brand brand
	Data  any
}

// message is the data of the "message" page: a title and a sentence.
type message struct{ Title, Text string }

// render executes a page into a buffer first, so a template error is a
// 500 rather than half a page.
func (p *Portal) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	p.renderView(w, r, status, page, view{Data: data})
}

// renderView renders a page with its view; the session's tenant and CSRF
// token are filled in.
func (p *Portal) renderView(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	if sess := sessionOf(r.Context()); sess.tenant != "" {
		v.Tenant, v.CSRF = sess.tenant, sess.csrf
		v.Can = map[string]bool{}
		for _, c := range authz.Capabilities {
			v.Can[string(c)] = sess.scope.Can(c)
		}
	}
	if v.Notice == "" {
		v.Notice = notices[r.URL.Query().Get("done")]
	}
	v.Brand = p.brandOf(r)
	var buf bytes.Buffer
	t := p.pages[page]
	if t == nil {
		p.log.Error("portal: no such page template", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		p.log.Error("portal: render page", "page", page, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if v.Brand.imgOrigin != "" {
		w.Header().Set("Content-Security-Policy", p.contentPolicy(v.Brand.imgOrigin))
	}
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// notices are the messages a redirect after an action asks for with
// ?done=, so no text from the URL is ever shown.
var notices = map[string]string{
	"created":   "Endpoint created.",
	"updated":   "Endpoint saved.",
	"enabled":   "Endpoint enabled.",
	"disabled":  "Endpoint disabled.",
	"deleted":   "Endpoint deleted.",
	"resent":    "Resend requested: a new delivery run has started.",
	"recovered": "Deliveries resumed: the ones waiting are being sent again now.",
}

// errNoPage is the error of a path the portal does not serve.
var errNoPage = &api.Error{Code: api.CodeNotFound, Message: "no such page"}

// fail answers an error that ends a request: "not found" for anything
// missing or outside the tenant, the outage banner when Temporal is
// unreachable, a generic page for the rest (logged).
func (p *Portal) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *api.Error
	switch {
	case errors.As(err, &e) && e.Code == api.CodeNotFound:
		p.render(w, r, http.StatusNotFound, "message", message{Title: "Not found",
			Text: "Nothing with this ID exists in your account. Check the link, or go back to the list."})
	case errors.As(err, &e) && e.Code != api.CodeInternal && e.Code != api.CodeUnavailable:
		p.renderView(w, r, statusOf(e), "message", view{Alert: e.Error(), Data: message{Title: "That did not work"}})
	case api.IsUnavailable(err):
		p.renderView(w, r, http.StatusServiceUnavailable, "message", view{Unavailable: true,
			Data: message{Title: "Temporarily unavailable", Text: "Try again in a minute."}})
	default:
		p.log.Error("portal: request failed", "method", r.Method, "path", r.URL.Path, "error", err)
		p.render(w, r, http.StatusInternalServerError, "message", message{Title: "Something went wrong",
			Text: "The error was logged. Try again in a minute."})
	}
}

// statusOf is the HTTP status the API answers an error with.
func statusOf(e *api.Error) int {
	switch e.Code {
	case api.CodeInvalid:
		return http.StatusBadRequest
	case api.CodeForbidden:
		return http.StatusForbidden
	case api.CodeConflict:
		return http.StatusConflict
	default:
		return http.StatusBadRequest
	}
}

// seeOther redirects after a successful form, so reloading does not send
// it again.
func seeOther(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

var funcs = template.FuncMap{
	// inc is i+1: the number of the i-th item, counted from one.
	"inc": func(i int) int { return i + 1 },
	// disabledReason says in words why an endpoint is disabled.
	"disabledReason": func(reason wire.EndpointDisabledReason) string {
		switch reason {
		case "auto":
			return "kept failing: disabled automatically"
		case "gone":
			return "its receiver answered 410 Gone"
		default:
			return "disabled by hand"
		}
	},
	// when renders a time as UTC in <time datetime>; portal.js shows it
	// in the viewer's time zone.
	"when": func(t any) template.HTML {
		var at time.Time
		switch v := t.(type) {
		case time.Time:
			at = v
		case *time.Time:
			if v == nil {
				return "—"
			}
			at = *v
		}
		if at.IsZero() {
			return "—"
		}
		at = at.UTC()
		return template.HTML(fmt.Sprintf(`<time datetime="%s">%s</time>`,
			at.Format(time.RFC3339Nano), template.HTMLEscapeString(at.Format("2006-01-02 15:04:05 UTC"))))
	},
	// pct renders a rate from 0 to 1 as a percentage.
	"pct": func(rate float64) string { return trimZero(fmt.Sprintf("%.1f", rate*100)) + "%" },
	// ms renders milliseconds, or a duration, with sensible precision.
	"ms": func(v any) string {
		var f float64
		switch d := v.(type) {
		case float64:
			f = d
		case *float64: // a timeline entry's
			if d != nil {
				f = *d
			}
		case time.Duration:
			f = float64(d.Microseconds()) / 1000
		}
		if f >= 100 {
			return fmt.Sprintf("%.0f ms", f)
		}
		return trimZero(fmt.Sprintf("%.1f", f)) + " ms"
	},
	// pretty indents a JSON payload; anything else is shown as it is.
	"pretty": func(body json.RawMessage) string {
		var buf bytes.Buffer
		if json.Indent(&buf, body, "", "  ") != nil {
			return string(body)
		}
		return buf.String()
	},
	"join": strings.Join,
	// chart and sparkline draw an hourly series as SVG; pctOf is a rate
	// as a percentage, "—" without attempts.
	"chart":     chart,
	"sparkline": sparkline,
	"pctOf":     pctOf,
	// expired reports whether a certificate's not_after has passed.
	"expired": func(t time.Time) bool { return !t.IsZero() && time.Now().After(t) },
	// durations shortens a list of Go durations: "1h0m0s" reads "1h".
	"durations": func(ds []string) string { return shortDurations(ds) },
	// signing describes an endpoint's signing profile in a line.
	"signing": func(p wire.SigningProfile) string { return signingSummary(api.SigningOf(p)) },
	// fieldOf is the data of a form's text field.
	"fieldOf": func(name, label, value string, errs map[string]string, hint string) formField {
		return formField{Name: name, Label: label, Value: value, Error: errs[name], Hint: hint}
	},
	// windowOf is the data of one row of an endpoint's figures.
	"windowOf": func(label string, w stats.Window) struct {
		Label string
		W     stats.Window
	} {
		return struct {
			Label string
			W     stats.Window
		}{label, w}
	},
	// filterOf is the data of a list's filter form.
	"filterOf": func(action, statusLabel string, f listFilter, eps []api.EndpointView, statuses []delivery.Status, periods []period) filterForm {
		return filterForm{Action: action, StatusLabel: statusLabel, Filter: f, Endpoints: eps, Statuses: statuses, Periods: periods}
	},
	// okCount counts the redrives that went through.
	"okCount": func(rs []redriveResult) int {
		n := 0
		for _, r := range rs {
			if r.Error == "" {
				n++
			}
		}
		return n
	},
	// result says how an attempt ended, for a customer: "HTTP 400" when
	// the endpoint answered, else the error class in words ("timeout:
	// ..." reads "Timeout").
	"result": attemptResult,
	// status names a delivery status for a badge's class.
	"badge": func(s any) string { return "badge badge-" + fmt.Sprint(s) },
}

// formField is a text field of a form, with the API's error about it.
type formField struct{ Name, Label, Value, Error, Hint string }

// filterForm is the filter of the deliveries and dead-letters pages.
type filterForm struct {
	Action, StatusLabel string
	Filter              listFilter
	Endpoints           []api.EndpointView
	Statuses            []delivery.Status
	Periods             []period
}

// shortDurations joins Go durations without their zero units.
func shortDurations(ds []string) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		if strings.HasSuffix(d, "m0s") {
			d = strings.TrimSuffix(d, "0s")
		}
		if strings.HasSuffix(d, "h0m") {
			d = strings.TrimSuffix(d, "0m")
		}
		out[i] = d
	}
	return strings.Join(out, ", ")
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// attemptResult is how an attempt ended, for a customer: "HTTP 400" when
// the endpoint answered with status, else the error class of errClass
// ("connection_refused: ..." reads "Connection refused"), "—" for none.
func attemptResult(status int, errClass string) string {
	if status != 0 {
		return fmt.Sprintf("HTTP %d", status)
	}
	class, _, _ := strings.Cut(errClass, ":")
	class = strings.TrimSpace(strings.ReplaceAll(class, "_", " "))
	if class == "" {
		return "—"
	}
	return strings.ToUpper(class[:1]) + class[1:]
}
