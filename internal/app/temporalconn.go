package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/tracing"
)

// TemporalConfig says how to reach an external Temporal cluster:
// self-hosted (plain, TLS or mTLS) or Temporal Cloud (mTLS or API key).
// Address and Namespace are required.
type TemporalConfig struct {
	Address   string // host:port of the frontend
	Namespace string
	// TLS turns on TLS with the system roots even without the fields
	// below; a certificate, CA, server name or API key implies it.
	TLS bool
	// TLSCert and TLSKey are paths to a PEM client certificate and key
	// (mTLS); both or neither.
	TLSCert, TLSKey string
	// TLSCA is a path to PEM CA certificates that verify the server;
	// empty means the system roots.
	TLSCA string
	// TLSServerName overrides the name the server certificate must carry.
	TLSServerName string
	// APIKey authenticates with an API key (Temporal Cloud); it implies TLS.
	APIKey string
	// Compression is the gRPC compression of every call to the frontend:
	// "none" (the default, also for "") or "gzip". Payloads reach Temporal
	// as ciphertext under the payload codec, which gzip does not shrink,
	// and compressing costs both processes CPU on every call
	// (docs/performance.md); gzip is for a link where bandwidth costs more.
	Compression string
	// ConnectTimeout bounds how long DialTemporal keeps trying to reach the
	// frontend, so processes may start before Temporal; zero means 30s.
	ConnectTimeout time.Duration
	// Metrics receives the SDK's metrics (set by the process, not a flag).
	Metrics client.MetricsHandler
	// Codec encodes every payload (set by the process, not a flag).
	Codec *codec.Codec
	// tracer, when set, traces the client's calls and its workers' tasks
	// (set by the process).
	tracer *tracing.Tracer
}

// The values of TemporalConfig.Compression.
const (
	CompressionNone = "none"
	CompressionGzip = "gzip"
)

// clientOptions validates c and returns the SDK options it describes. The
// errors name files and fields, never the API key.
func (c TemporalConfig) clientOptions(logger *slog.Logger) (client.Options, error) {
	opts := client.Options{
		HostPort:       c.Address,
		Namespace:      c.Namespace,
		Logger:         sdkLogger(logger),
		MetricsHandler: c.Metrics,
	}
	if c.Codec != nil {
		c.Codec.Apply(&opts)
	}
	if err := applyTracing(c.tracer, &opts); err != nil {
		return opts, err
	}
	switch {
	case c.Address == "":
		return opts, errors.New("missing Temporal address")
	case c.Namespace == "":
		return opts, errors.New("missing Temporal namespace")
	case (c.TLSCert == "") != (c.TLSKey == ""):
		return opts, errors.New("temporal mTLS needs both a client certificate and its key")
	}
	switch c.Compression {
	case "", CompressionNone:
		opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	case CompressionGzip:
		opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionGzip{}
	default:
		return opts, fmt.Errorf("temporal compression %q: want %s or %s", c.Compression, CompressionNone, CompressionGzip)
	}
	if c.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(c.APIKey)
	}
	if !c.TLS && c.TLSCert == "" && c.TLSCA == "" && c.TLSServerName == "" && c.APIKey == "" {
		return opts, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.TLSServerName}
	if c.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return opts, fmt.Errorf("load temporal client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if c.TLSCA != "" {
		pem, err := os.ReadFile(c.TLSCA)
		if err != nil {
			return opts, fmt.Errorf("read temporal CA: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return opts, fmt.Errorf("temporal CA %s: no PEM certificates", c.TLSCA)
		}
	}
	opts.ConnectionOptions.TLS = cfg
	return opts, nil
}

// DialTemporal connects to the cluster, retrying until ConnectTimeout so a
// process may start before the frontend, and checks the namespace exists.
func DialTemporal(ctx context.Context, c TemporalConfig, logger *slog.Logger) (client.Client, error) {
	opts, err := c.clientOptions(logger)
	if err != nil {
		return nil, err
	}
	timeout := c.ConnectTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		cl, err := client.DialContext(ctx, opts)
		if err == nil {
			if err = checkNamespace(ctx, cl, c.Namespace); err == nil {
				return cl, nil
			}
			cl.Close()
			var notFound *serviceerror.NamespaceNotFound
			if errors.As(err, &notFound) {
				return nil, err
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("connect to temporal at %s: %w", c.Address, err)
		}
		logger.Info("waiting for temporal", "address", c.Address, "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// checkNamespace describes ns; a missing namespace is an error naming the
// command that creates it (hookd never creates namespaces on a cluster).
func checkNamespace(ctx context.Context, cl client.Client, ns string) error {
	_, err := cl.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: ns})
	var notFound *serviceerror.NamespaceNotFound
	if errors.As(err, &notFound) {
		return fmt.Errorf("namespace %q does not exist; create it with: temporal operator namespace create --namespace %s --retention %s: %w",
			ns, ns, namespace.DefaultRetention, err)
	}
	if err != nil {
		return fmt.Errorf("describe namespace %s: %w", ns, err)
	}
	return nil
}
