package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/hookd/hookd/internal/store"
)

// An endpoint's credentials (custom headers, auth and TLS) are one sealed JSON
// value in hookd_endpoint_credentials, a row beside its signing secrets
// that exists only while it has some. The endpoint queries read it with a
// scalar subquery, so the attempt that loads its endpoint loads them in
// the same round trip.

// credentialsColumn is the column endpoint queries add after
// endpointColumns to read the sealed credentials (NULL when none).
const credentialsColumn = `(SELECT c.ciphertext FROM hookd_endpoint_credentials c WHERE c.endpoint_id = hookd_endpoints.id)`

// credentialsWire is how Credentials are sealed.
type credentialsWire struct {
	Headers map[string]string `json:"headers,omitempty"`
	Auth    *authWire         `json:"auth,omitempty"`
	TLS     *tlsWire          `json:"tls,omitempty"`
}

type tlsWire struct {
	ClientCertificate string `json:"client_certificate,omitempty"`
	ClientKey         string `json:"client_key,omitempty"`
	CA                string `json:"ca,omitempty"`
}

type authWire struct {
	Type         string `json:"type"`
	Token        string `json:"token,omitempty"`
	Username     string `json:"username,omitempty"`
	Password     string `json:"password,omitempty"`
	TokenURL     string `json:"token_url,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	Scope        string `json:"scope,omitempty"`
	Audience     string `json:"audience,omitempty"`
}

// sealCredentials encrypts c bound to its endpoint; nil for empty ones.
func (s *Store) sealCredentials(endpointID string, c *store.Credentials) ([]byte, error) {
	if c.Empty() {
		return nil, nil
	}
	w := credentialsWire{Headers: c.Headers}
	if a := c.Auth; a != nil {
		w.Auth = &authWire{Type: a.Type, Token: a.Token, Username: a.Username, Password: a.Password,
			TokenURL: a.TokenURL, ClientID: a.ClientID, ClientSecret: a.ClientSecret, Scope: a.Scope, Audience: a.Audience}
	}
	if t := c.TLS; t != nil {
		w.TLS = &tlsWire{ClientCertificate: t.ClientCertificate, ClientKey: t.ClientKey, CA: t.CA}
	}
	plain, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode credentials: %w", err)
	}
	sealed, err := s.box.Seal(plain, credentialsAD(endpointID))
	if err != nil {
		return nil, fmt.Errorf("encrypt credentials: %w", err)
	}
	return sealed, nil
}

// openCredentials decrypts what sealCredentials made; nil for NULL. Its
// error never holds a value.
func (s *Store) openCredentials(endpointID string, sealed []byte) (*store.Credentials, error) {
	if sealed == nil {
		return nil, nil
	}
	plain, err := s.box.Open(sealed, credentialsAD(endpointID))
	if err != nil {
		return nil, fmt.Errorf("decrypt credentials of endpoint %s: %w", endpointID, err)
	}
	var w credentialsWire
	if err := json.Unmarshal(plain, &w); err != nil {
		return nil, fmt.Errorf("decode credentials of endpoint %s: invalid JSON", endpointID)
	}
	c := &store.Credentials{Headers: w.Headers}
	if a := w.Auth; a != nil {
		c.Auth = &store.Auth{Type: a.Type, Token: a.Token, Username: a.Username, Password: a.Password,
			TokenURL: a.TokenURL, ClientID: a.ClientID, ClientSecret: a.ClientSecret, Scope: a.Scope, Audience: a.Audience}
	}
	if t := w.TLS; t != nil {
		c.TLS = &store.TLS{ClientCertificate: t.ClientCertificate, ClientKey: t.ClientKey, CA: t.CA}
	}
	return c, nil
}

func credentialsAD(endpointID string) []byte {
	return []byte("hookd endpoint credentials\x00" + endpointID)
}

// putCredentials replaces the endpoint's sealed credentials in tx (none
// when sealed is nil).
func putCredentials(ctx context.Context, tx *sql.Tx, endpointID string, sealed []byte, at int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM hookd_endpoint_credentials WHERE endpoint_id = $1`, endpointID); err != nil {
		return err
	}
	if sealed == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO hookd_endpoint_credentials (endpoint_id, ciphertext, updated_at)
		VALUES ($1, $2, $3)`, endpointID, sealed, at)
	return err
}

// RawCredentials returns the endpoint's sealed credentials as they are at
// rest (nil when it has none). It exists for tests and audits that check
// what the database holds.
func (s *Store) RawCredentials(ctx context.Context, endpointID string) ([]byte, error) {
	var b []byte
	err := s.read.QueryRowContext(ctx, `SELECT ciphertext FROM hookd_endpoint_credentials WHERE endpoint_id = $1`, endpointID).Scan(&b)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("raw credentials: %w", err)
	}
	return b, nil
}

// scanEndpointWithCredentials reads one row of endpointColumns followed
// by credentialsColumn and opens the credentials.
func (s *Store) scanEndpointWithCredentials(sc scanner) (*store.Endpoint, error) {
	var sealed []byte
	ep, err := scanEndpoint(sc, &sealed)
	if err != nil {
		return nil, err
	}
	if ep.Credentials, err = s.openCredentials(ep.ID, sealed); err != nil {
		return nil, err
	}
	return ep, nil
}
