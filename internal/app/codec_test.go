package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoopbackUIOrigins(t *testing.T) {
	require.Equal(t, []string{"http://127.0.0.1:8233", "http://localhost:8233"}, loopbackUIOrigins("127.0.0.1:8233", "127.0.0.1:8080"))
	require.Equal(t, []string{"http://localhost:8233", "http://127.0.0.1:8233"}, loopbackUIOrigins("localhost:8233", "127.0.0.1:8080"))
	require.Nil(t, loopbackUIOrigins("", "127.0.0.1:8080"), "no UI")
	require.Nil(t, loopbackUIOrigins("0.0.0.0:8233", "127.0.0.1:8080"), "a UI reachable from elsewhere")
	require.Nil(t, loopbackUIOrigins("127.0.0.1:8233", "0.0.0.0:8080"), "an API reachable from elsewhere")
}

func TestCodecServerTrustsOnlyTheLoopbackUI(t *testing.T) {
	keyCheck := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer k" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h, err := withCodecServer(api, codecServerOptions{
		payload: PayloadConfig{Off: true}, namespace: "default", requireKey: keyCheck,
		trustedOrigins: loopbackUIOrigins("127.0.0.1:8233", "127.0.0.1:8080"),
	})
	require.NoError(t, err)
	status := func(path, origin, auth string) int {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"payloads":[]}`))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	require.Equal(t, http.StatusOK, status("/codec/decode", "http://127.0.0.1:8233", ""), "the embedded UI")
	require.Equal(t, http.StatusOK, status("/codec/decode", "http://localhost:8233", ""))
	require.Equal(t, http.StatusUnauthorized, status("/codec/decode", "http://127.0.0.1:3000", ""), "another local page")
	require.Equal(t, http.StatusUnauthorized, status("/codec/decode", "http://evil.example:8233", ""), "a rebound name")
	require.Equal(t, http.StatusUnauthorized, status("/codec/decode", "", ""))
	require.Equal(t, http.StatusOK, status("/codec/decode", "", "Bearer k"), "the CLI with the API key")
	require.Equal(t, http.StatusTeapot, status("/v1/endpoints", "", ""), "everything else is the API's")
}

func TestServeNeedsAPayloadKeyUnlessOff(t *testing.T) {
	cfg := ServeConfig{Worker: true, DatabaseURL: "postgres://db/hookd", MasterKey: make([]byte, 32)}
	require.ErrorIs(t, cfg.Validate(), errNoPayloadKey)
	cfg.Payload.Off = true
	require.NoError(t, cfg.Validate())
}

func TestDevPayloadKeysFile(t *testing.T) {
	dir := t.TempDir()
	off, err := loadDevPayloadKeys(dir, PayloadConfig{Off: true})
	require.NoError(t, err)
	require.Empty(t, off.Keys, "off creates no key file")

	on, err := loadDevPayloadKeys(dir, PayloadConfig{})
	require.NoError(t, err)
	require.Len(t, on.Keys, 1, "on creates one")
	again, err := loadDevPayloadKeys(dir, PayloadConfig{Off: true})
	require.NoError(t, err)
	require.Equal(t, on.Keys, again.Keys, "off still reads the file, to decrypt old payloads")
}
