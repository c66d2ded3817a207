package cli

import (
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
)

// credentialFlags are an endpoint's custom headers and auth.
type credentialFlags struct {
	headers              stringList
	bearer, basic        string
	clearHeaders, noAuth bool
	tls                  tlsFlags
}

func (cf *credentialFlags) register(fs *pflag.FlagSet, update bool) {
	what := ""
	if update {
		what = "; replaces every header"
	}
	fs.Var(&cf.headers, "header", "'Name: value' custom header sent on every attempt, a credential shown only masked (repeatable"+what+")")
	fs.StringVar(&cf.bearer, "auth-bearer", "", "bearer token sent as Authorization on every attempt")
	fs.StringVar(&cf.basic, "auth-basic", "", "user:password sent as HTTP Basic on every attempt")
	if update {
		fs.BoolVar(&cf.clearHeaders, "clear-headers", false, "remove every custom header")
		fs.BoolVar(&cf.noAuth, "no-auth", false, "remove the endpoint's auth")
	}
	cf.tls.register(fs, update)
}

// input adds the flags the user set to in.
func (cf *credentialFlags) input(fs *pflag.FlagSet, in *apiclient.EndpointInput) error {
	if len(cf.headers) > 0 || cf.clearHeaders {
		if len(cf.headers) > 0 && cf.clearHeaders {
			return usagef("--header and --clear-headers do not go together")
		}
		h := map[string]string{}
		for _, kv := range cf.headers {
			name, value, ok := strings.Cut(kv, ":")
			if !ok || strings.TrimSpace(name) == "" {
				return usagef("--header wants 'Name: value'") // never repeat a value: it may be a credential
			}
			h[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
		in.Headers = &h
	}
	n := 0
	for _, set := range []bool{fs.Changed("auth-bearer"), fs.Changed("auth-basic"), cf.noAuth} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usagef("give one of --auth-bearer, --auth-basic and --no-auth")
	}
	switch {
	case fs.Changed("auth-bearer"):
		in.Auth = &apiclient.EndpointAuth{Type: "bearer", Token: cf.bearer}
	case fs.Changed("auth-basic"):
		user, pass, ok := strings.Cut(cf.basic, ":")
		if !ok {
			return usagef("--auth-basic wants user:password")
		}
		in.Auth = &apiclient.EndpointAuth{Type: "basic", Username: user, Password: pass}
	case cf.noAuth:
		in.RemoveAuth = true
	}
	return cf.tls.input(in)
}

// headersLine is the masked headers, sorted by name.
func headersLine(h map[string]string) string {
	var out []string
	for k, v := range h {
		out = append(out, k+": "+v)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// authLine is the masked auth.
func authLine(a apiclient.EndpointAuth) string {
	switch {
	case a.Type == "":
		return ""
	case a.Type == "basic":
		return "basic " + a.Username + ":" + a.Password
	case a.Type == "bearer":
		return "bearer " + a.Token
	default:
		return string(a.Type) + " (client " + a.ClientID + ")"
	}
}
