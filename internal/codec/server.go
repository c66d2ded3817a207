package codec

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// Path is where hookd serves the codec protocol: POST Path+"/encode" and
// Path+"/decode" with Temporal's `{"payloads": [...]}` JSON. It is what the
// Web UI's codec endpoint and `temporal --codec-endpoint` are set to.
const Path = "/codec"

// maxRequest bounds a codec request body.
const maxRequest = 16 << 20

// HandlerOptions configures NewHandler.
type HandlerOptions struct {
	// Keys are the master keys, oldest first (as for New).
	Keys [][]byte
	// Encrypt says whether /encode encrypts.
	Encrypt bool
	// Namespace is used when a request names none in X-Namespace.
	Namespace string
	// AllowOrigins are the browser origins (the Web UI's) that CORS lets
	// call the codec; preflight requests from them are answered.
	AllowOrigins []string
	// Authorize guards encode and decode (never the preflight): it calls
	// next for an authorized request and answers anything else itself.
	// Required.
	Authorize func(next http.Handler) http.Handler
	// EventKeys, when set, opens the bodies sealed with their event's
	// key in what /decode answers, and marks the expunged ones
	// (eventBodies).
	EventKeys EventKeys
}

// Validate checks the field NewHandler needs besides the keys (New checks
// those): Authorize.
func (opts HandlerOptions) Validate() error {
	if opts.Authorize == nil {
		return errors.New("codec server: missing authorization")
	}
	return nil
}

// NewHandler serves the codec protocol at Path+"/encode" and
// Path+"/decode". The data key is the one of the namespace in the request's
// X-Namespace header (the Web UI and the temporal CLI send it), or of
// opts.Namespace.
func NewHandler(opts HandlerOptions) (http.Handler, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	def, err := New(opts.Keys, opts.Namespace, opts.Encrypt)
	if err != nil {
		return nil, err
	}
	h := &handler{opts: opts, def: converter.NewPayloadCodecHTTPHandler(codecs(opts, def)...)}
	mux := http.NewServeMux()
	codec := opts.Authorize(http.HandlerFunc(h.serveCodec))
	for _, op := range []string{"/encode", "/decode"} {
		mux.Handle("POST "+Path+op, codec)
		mux.HandleFunc("OPTIONS "+Path+op, h.preflight)
	}
	return responseHeaders(h.cors(mux)), nil
}

// responseHeaders sets what every codec answer carries: no content
// sniffing, and no caching of decoded payloads.
func responseHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

type handler struct {
	opts HandlerOptions
	def  http.Handler
}

func (h *handler) serveCodec(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequest)
	ns := r.Header.Get("X-Namespace")
	if ns == "" || ns == h.opts.Namespace {
		h.def.ServeHTTP(w, r)
		return
	}
	c, err := New(h.opts.Keys, ns, h.opts.Encrypt)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	converter.NewPayloadCodecHTTPHandler(codecs(h.opts, c)...).ServeHTTP(w, r)
}

// codecs are the codec protocol's steps, decoded in order: the payload
// codec, then the event bodies when opts has EventKeys.
func codecs(opts HandlerOptions, c *Codec) []converter.PayloadCodec {
	if opts.EventKeys == nil {
		return []converter.PayloadCodec{c}
	}
	return []converter.PayloadCodec{c, eventBodies{keys: opts.EventKeys}}
}

// cors adds the CORS response headers for an allowed origin.
func (h *handler) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Origin")
		if origin := r.Header.Get("Origin"); origin != "" && slices.Contains(h.opts.AllowOrigins, origin) {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Access-Control-Allow-Credentials", "true")
		}
		next.ServeHTTP(w, r)
	})
}

// preflight answers a CORS preflight: 204 with the allowed method and
// headers for an allowed origin, 403 for any other.
func (h *handler) preflight(w http.ResponseWriter, r *http.Request) {
	if w.Header().Get("Access-Control-Allow-Origin") == "" {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", strings.Join([]string{
		"Authorization", "Authorization-Extras", "Content-Type", "X-Namespace"}, ", "))
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
