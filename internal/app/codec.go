package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/secretbox"
)

// PayloadConfig says how hookd encrypts the payloads it writes to Temporal
// (package codec), the same way in every process.
type PayloadConfig struct {
	// Off writes new payloads in plaintext (--payload-encryption=off);
	// Keys, if any, still decrypt those written while it was on.
	Off bool
	// Keys are the master keys, oldest first; the last one encrypts. hookd
	// dev reads them from <data-dir>/payload-keys when empty (creating the
	// file with one key unless Off); the other processes require them
	// unless Off.
	Keys [][]byte
	// CORSOrigins are the browser origins (a Web UI's) allowed to call the
	// codec server. hookd dev adds its embedded UI's.
	CORSOrigins []string
	// NoEventKeys records events without a data key
	// (--event-keys=off): their bodies in Temporal are sealed by the
	// payload codec alone, which an expunge cannot reach.
	NoEventKeys bool
}

// PayloadKeysFile is hookd dev's file of payload keys in the data dir:
// base64 keys, one a line, oldest first; append a line to rotate.
const PayloadKeysFile = "payload-keys"

// errNoPayloadKey is the start-up error of encryption without a key.
var errNoPayloadKey = errors.New("payload encryption is on but no payload key is configured: " +
	"set --payload-keys or HOOKD_PAYLOAD_KEYS (generate one with: head -c32 /dev/urandom | base64), or --payload-encryption=off")

// loadDevPayloadKeys fills cfg.Keys from the data dir's key file when none
// are given: created on first start with encryption on, only read when off.
func loadDevPayloadKeys(dataDir string, cfg PayloadConfig) (PayloadConfig, error) {
	if len(cfg.Keys) > 0 {
		return cfg, nil
	}
	path := filepath.Join(dataDir, PayloadKeysFile)
	var err error
	if cfg.Off {
		cfg.Keys, err = secretbox.ReadKeysFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return cfg, nil
		}
	} else {
		cfg.Keys, err = secretbox.LoadOrCreateKeysFile(path)
	}
	if err != nil {
		return cfg, fmt.Errorf("payload keys: %w", err)
	}
	return cfg, nil
}

// newPayloadCodec returns the codec of namespace ns that every Temporal
// client of the process uses. With encryption off and no keys it only
// passes plaintext through (and names the missing key if it meets an
// encrypted payload).
func newPayloadCodec(cfg PayloadConfig, ns string) (*codec.Codec, error) {
	if !cfg.Off && len(cfg.Keys) == 0 {
		return nil, errNoPayloadKey
	}
	c, err := codec.New(cfg.Keys, ns, !cfg.Off)
	if err != nil {
		return nil, fmt.Errorf("payload keys: %w", err)
	}
	return c, nil
}

// codecServerOptions configures withCodecServer.
type codecServerOptions struct {
	payload   PayloadConfig
	namespace string
	// requireKey is the API's own key check (api.Server.RequireAPIKey).
	requireKey func(http.Handler) http.Handler
	// trustedOrigins may call the codec without the API key: hookd dev's
	// embedded Web UI, when both it and the API listen on loopback only.
	trustedOrigins []string
	// eventKeys opens event bodies sealed with their event's key in what
	// /decode answers (nil: shown sealed).
	eventKeys codec.EventKeys
}

// storeEventKeys reads events' data keys from the endpoint store for the
// codec server: a missing record is expunged (gone past the dedup window).
func storeEventKeys(st store.Events) codec.EventKeys {
	return func(ctx context.Context, eventID string) ([]byte, bool, error) {
		ev, err := st.GetEvent(ctx, eventID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil, true, nil
		case err != nil:
			return nil, false, err
		}
		return ev.DataKey, ev.Expunge != nil, nil
	}
}

// withCodecServer serves Temporal's codec protocol at codec.Path beside
// next: POST /codec/encode and /codec/decode behind the platform API key,
// with CORS for the configured origins.
func withCodecServer(next http.Handler, o codecServerOptions) (http.Handler, error) {
	h, err := codec.NewHandler(codec.HandlerOptions{
		Keys:         o.payload.Keys,
		Encrypt:      !o.payload.Off,
		Namespace:    o.namespace,
		EventKeys:    o.eventKeys,
		AllowOrigins: slices.Concat(o.payload.CORSOrigins, o.trustedOrigins),
		Authorize: func(next http.Handler) http.Handler {
			withKey := o.requireKey(next)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if origin := r.Header.Get("Origin"); origin != "" && slices.Contains(o.trustedOrigins, origin) {
					next.ServeHTTP(w, r)
					return
				}
				withKey.ServeHTTP(w, r)
			})
		},
	})
	if err != nil {
		return nil, fmt.Errorf("codec server: %w", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, codec.Path+"/") {
			h.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

// loopbackUIOrigins returns the origins of hookd dev's embedded Web UI at
// uiAddr that the codec server trusts without the API key: only when the
// UI and the API (apiAddr) both listen on loopback, where whoever can open
// the UI already sees everything in Temporal. A browser sets Origin
// itself, so a web page from anywhere else (DNS rebinding included) is
// not trusted.
func loopbackUIOrigins(uiAddr, apiAddr string) []string {
	if uiAddr == "" || !isLoopback(uiAddr) || !isLoopback(apiAddr) {
		return nil
	}
	host, port, _ := net.SplitHostPort(uiAddr)
	alias := "localhost" // the name a browser may use instead
	if host == "localhost" {
		alias = "127.0.0.1"
	}
	return []string{"http://" + uiAddr, "http://" + net.JoinHostPort(alias, port)}
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
