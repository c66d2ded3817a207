package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/metrics"
)

// otlpSink is an OTLP/HTTP metrics receiver: it keeps the newest value
// of every data point it is sent, by metric name and attributes.
type otlpSink struct {
	mu       sync.Mutex
	names    map[string]bool
	points   map[string]float64 // name + attributes -> newest value
	resource map[string]string
}

func newOTLPSink(t *testing.T) (*otlpSink, *httptest.Server) {
	s := &otlpSink{names: map[string]bool{}, points: map[string]float64{}, resource: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req collectorpb.ExportMetricsServiceRequest
		if err != nil || r.URL.Path != "/v1/metrics" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		s.add(&req)
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&collectorpb.ExportMetricsServiceResponse{})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *otlpSink) add(req *collectorpb.ExportMetricsServiceRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		for _, a := range rm.GetResource().GetAttributes() {
			s.resource[a.GetKey()] = a.GetValue().GetStringValue()
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				s.names[m.GetName()] = true
				if sum := m.GetSum(); sum != nil {
					for _, p := range sum.GetDataPoints() {
						s.points[m.GetName()+labels(p.GetAttributes())] = p.GetAsDouble()
					}
				}
			}
		}
	}
}

// labels renders attributes as Prometheus does: {k="v",...} in key order
// (the bridge keeps the registry's order, which is sorted).
func labels(attrs []*commonpb.KeyValue) string {
	if len(attrs) == 0 {
		return ""
	}
	out := "{"
	for i, a := range attrs {
		if i > 0 {
			out += ","
		}
		out += a.GetKey() + `="` + a.GetValue().GetStringValue() + `"`
	}
	return out + "}"
}

func (s *otlpSink) value(series string) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.points[series]
	return v, ok
}

func (s *otlpSink) has(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names[name]
}

// TestOTLPMetrics runs its own hookd dev with the metric exporter the
// OTEL_* environment describes, as `hookd dev` and `hookd serve` build
// it, pointed at an in-process OTLP/HTTP receiver. Every hookd_ metric
// /metrics serves arrives over OTLP under the same name, an attempt's
// counter with the same labels and value, and the resource names hookd.
func TestOTLPMetrics(t *testing.T) {
	sink, srv := newOTLPSink(t)
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", srv.URL+"/v1/metrics")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "200")
	exp, err := metrics.OTLPExporterFromEnv(context.Background())
	require.NoError(t, err)
	require.NotNil(t, exp, "the metrics endpoint turns the exporter on")

	dev := ownDev(t, func(c *app.DevConfig) { c.Version, c.MetricsExporter = "otlp-test", exp })
	api := &apiClient{t: t, dev: dev}
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"otlp.metrics"}})
	a := api.send(`{"type":"otlp.metrics","payload":{"n":1}}`)
	api.waitDelivery(a.Deliveries[0].ID, 10*time.Second)

	series := `hookd_attempts_total{endpoint_id="` + ep.ID + `",outcome="success"}`
	require.Eventually(t, func() bool {
		v, ok := sink.value(series)
		return ok && v == 1
	}, 10*time.Second, 100*time.Millisecond, "the attempt's counter arrives over OTLP with /metrics' labels")

	req, err := http.NewRequest("GET", dev.APIURL+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+dev.APIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(body), series+" 1")
	families := regexp.MustCompile(`(?m)^# TYPE (hookd_\S+) `).FindAllStringSubmatch(string(body), -1)
	require.NotEmpty(t, families)
	for _, f := range families {
		require.True(t, sink.has(f[1]), "%s is exported over OTLP too", f[1])
	}
	sink.mu.Lock()
	require.Equal(t, "hookd", sink.resource["service.name"])
	require.Equal(t, "otlp-test", sink.resource["service.version"])
	sink.mu.Unlock()

}

// TestOTLPMetricsOffByDefault: with no OTLP variable set, no exporter;
// an endpoint with an exporter other than otlp is an error.
func TestOTLPMetricsOffByDefault(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	exp, err := metrics.OTLPExporterFromEnv(context.Background())
	require.NoError(t, err)
	require.Nil(t, exp)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	exp, err = metrics.OTLPExporterFromEnv(context.Background())
	require.NoError(t, err)
	require.Nil(t, exp, "none wins over an endpoint")
	t.Setenv("OTEL_METRICS_EXPORTER", "console")
	_, err = metrics.OTLPExporterFromEnv(context.Background())
	require.ErrorContains(t, err, "OTEL_METRICS_EXPORTER=console")
}
