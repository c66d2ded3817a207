package metrics

import (
	"context"
	"fmt"
	"os"
	"strings"

	otelprom "go.opentelemetry.io/contrib/bridges/prometheus"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// OTLPEnabled reports whether the environment asks for metrics over
// OTLP: an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) or OTEL_METRICS_EXPORTER=otlp, and
// neither OTEL_SDK_DISABLED=true nor OTEL_METRICS_EXPORTER=none (or
// prometheus, which /metrics always serves).
func OTLPEnabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch strings.TrimSpace(getenv("OTEL_METRICS_EXPORTER")) {
	case "none", "prometheus":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// OTLPExporterFromEnv returns the OTLP metric exporter the OTEL_*
// environment describes, or nil when it asks for none (OTLPEnabled). The
// protocol is OTEL_EXPORTER_OTLP_METRICS_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" (the default) or "grpc";
// endpoint, headers, timeout, TLS, compression and temporality are the
// exporter's own OTEL_EXPORTER_OTLP_* variables.
func OTLPExporterFromEnv(ctx context.Context) (sdkmetric.Exporter, error) {
	if !OTLPEnabled(os.Getenv) {
		return nil, nil
	}
	if e := strings.TrimSpace(os.Getenv("OTEL_METRICS_EXPORTER")); e != "" && e != "otlp" {
		return nil, fmt.Errorf("OTEL_METRICS_EXPORTER=%s: hookd exports metrics over otlp (or none; /metrics serves Prometheus)", e)
	}
	protocol := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"))
	if protocol == "" {
		protocol = strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	var (
		exp sdkmetric.Exporter
		err error
	)
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlpmetrichttp.New(ctx)
	case "grpc":
		exp, err = otlpmetricgrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTLP protocol %q: hookd exports metrics over grpc or http/protobuf", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP metric exporter (%s): %w", protocol, err)
	}
	return exp, nil
}

// ExportOTLP pushes everything /metrics serves to exp, with the same
// names and labels, every OTEL_METRIC_EXPORT_INTERVAL (default 60s):
// the registry is read through the OpenTelemetry Prometheus bridge, so
// there is one set of instruments and two ways out. res describes the
// process (tracing.Resource). Shutting the returned provider down
// exports one last time and closes the exporter.
func (m *Metrics) ExportOTLP(exp sdkmetric.Exporter, res *resource.Resource) *sdkmetric.MeterProvider {
	reader := sdkmetric.NewPeriodicReader(exp, sdkmetric.WithProducer(otelprom.NewMetricProducer(otelprom.WithGatherer(m.reg))))
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
}
