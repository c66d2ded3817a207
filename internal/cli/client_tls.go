package cli

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
)

// tlsFlags are an endpoint's client certificate, key and CA, read from
// PEM files.
type tlsFlags struct {
	cert, key, ca string
	noTLS         bool
}

func (tf *tlsFlags) register(fs *pflag.FlagSet, update bool) {
	keeps := ""
	if update {
		keeps = "; on update, a part not given keeps its current value"
	}
	fs.StringVar(&tf.cert, "tls-cert", "", "PEM file of the client certificate every attempt presents (mutual TLS; with --tls-key"+keeps+")")
	fs.StringVar(&tf.key, "tls-key", "", "PEM file of the client certificate's private key, unencrypted; stored sealed and never shown")
	fs.StringVar(&tf.ca, "tls-ca", "", "PEM file of the CA certificates the receiver's certificate is verified with, instead of the system's")
	if update {
		fs.BoolVar(&tf.noTLS, "no-tls", false, "remove the endpoint's client certificate, key and CA")
	}
}

// given reports whether a file flag is set.
func (tf *tlsFlags) given() bool { return tf.cert != "" || tf.key != "" || tf.ca != "" }

// input reads the files the user named into in.
func (tf *tlsFlags) input(in *apiclient.EndpointInput) error {
	if tf.noTLS {
		if tf.given() {
			return usagef("--no-tls does not go with --tls-cert, --tls-key or --tls-ca")
		}
		in.RemoveTLS = true
		return nil
	}
	if !tf.given() {
		return nil
	}
	t := &apiclient.EndpointTLS{}
	for _, f := range []struct {
		flag, path string
		into       *string
	}{{"--tls-cert", tf.cert, &t.ClientCertificate}, {"--tls-key", tf.key, &t.ClientKey}, {"--tls-ca", tf.ca, &t.CA}} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			// The path, never the contents: they may be a key.
			return usagef("%s: cannot read %s", f.flag, f.path)
		}
		*f.into = string(b)
	}
	in.TLS = t
	return nil
}

// completeTLS fills the parts of an update's TLS the user left out with
// the endpoint's current ones (the key by its marker, which keeps it), so
// that --tls-ca alone changes only the CA.
func completeTLS(ctx context.Context, c *apiclient.Client, id string, in *apiclient.EndpointInput) error {
	t := in.TLS
	if t == nil || (t.ClientCertificate != "" && t.ClientKey != "" && t.CA != "") {
		return nil
	}
	ep, err := c.GetEndpoint(ctx, id)
	if err != nil {
		return err
	}
	cur := ep.TLS
	if cur.ClientCertificate == "" && cur.CA == "" {
		return nil
	}
	if t.ClientCertificate == "" && t.ClientKey == "" {
		t.ClientCertificate, t.ClientKey = cur.ClientCertificate, cur.ClientKey
	}
	if t.ClientKey == "" && t.ClientCertificate != "" {
		t.ClientKey = cur.ClientKey // a renewed certificate of the same key
	}
	if t.CA == "" {
		t.CA = cur.CA
	}
	return nil
}

// tlsLines are the client certificate's and the CA's lines of an
// endpoint's details.
func tlsLines(t apiclient.EndpointTLSView) (cert, ca string) {
	if t.Subject != "" {
		cert = t.Subject + " (issuer " + t.Issuer + ", key " + t.ClientKey + ")"
	}
	return cert, strings.Join(t.CASubjects, "; ")
}
