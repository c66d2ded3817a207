package api

import "net/http"

// setResponseHeaders sets what every API response carries: no content
// sniffing (a JSON error is never rendered as HTML), and no caching of
// answers that hold tenants' data, tokens or secrets.
func setResponseHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}
