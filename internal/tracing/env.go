package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Enabled reports whether the environment asks for traces: an OTLP
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp, and
// neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none. The other
// OTEL_* variables only tune what these turn on.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// FromEnv returns the tracer provider the OTEL_* environment describes,
// or nil when it asks for no traces (Enabled). The exporter is OTLP over
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL:
// "http/protobuf" (the default) or "grpc"; endpoint, headers, timeout,
// TLS and compression are the exporter's own OTEL_EXPORTER_OTLP_*
// variables, the sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG
// (default: parent-based, always on), the batching OTEL_BSP_*, the
// resource OTEL_SERVICE_NAME (default "hookd") and
// OTEL_RESOURCE_ATTRIBUTES. The caller shuts the provider down, which
// flushes the spans not yet exported.
func FromEnv(ctx context.Context, version string) (*sdktrace.TracerProvider, error) {
	if !Enabled(os.Getenv) {
		return nil, nil
	}
	if e := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: hookd exports traces over otlp only (or none)", e)
	}
	exp, err := exporter(ctx, os.Getenv)
	if err != nil {
		return nil, err
	}
	res, err := Resource(ctx, version)
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// Resource describes the process to OpenTelemetry, for its traces and
// its OTLP metrics alike: service.name "hookd" (or OTEL_SERVICE_NAME),
// service.version, the SDK, and OTEL_RESOURCE_ATTRIBUTES.
func Resource(ctx context.Context, version string) (*resource.Resource, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "hookd"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		// Last, so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	return res, nil
}

// exporter is the OTLP exporter over the protocol the environment names.
func exporter(ctx context.Context, getenv func(string) string) (*otlptrace.Exporter, error) {
	protocol := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
	if protocol == "" {
		protocol = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	var (
		exp *otlptrace.Exporter
		err error
	)
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTLP protocol %q: hookd exports traces over grpc or http/protobuf", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter (%s): %w", protocol, err)
	}
	return exp, nil
}
