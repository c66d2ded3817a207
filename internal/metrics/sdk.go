package metrics

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
)

// sdkBuckets are the Temporal SDK timers' histogram buckets, in seconds.
var sdkBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// sdkCollector holds the series the Temporal SDK creates, each named and
// labelled as the SDK asks, and collects them all. The SDK uses one metric
// name with different tag sets, which a fixed-label vector cannot hold, so
// each series is its own metric and the collector is unchecked.
type sdkCollector struct {
	mu     sync.Mutex
	series map[string]prometheus.Collector
}

func newSDKCollector() *sdkCollector {
	return &sdkCollector{series: map[string]prometheus.Collector{}}
}

// Describe describes nothing: the series are created as the SDK asks.
func (c *sdkCollector) Describe(chan<- *prometheus.Desc) {}

// Collect collects every series.
func (c *sdkCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	series := slices.Collect(maps.Values(c.series))
	c.mu.Unlock()
	for _, s := range series {
		s.Collect(ch)
	}
}

// get returns the series of kind, name and labels, made by mk on first
// use.
func (c *sdkCollector) get(kind, name string, labels prometheus.Labels, mk func(string, prometheus.Labels) prometheus.Collector) prometheus.Collector {
	var key strings.Builder
	key.WriteString(kind + "\xff" + name)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		key.WriteString("\xff" + k + "=" + labels[k])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.series[key.String()]
	if !ok {
		s = mk(name, labels)
		c.series[key.String()] = s
	}
	return s
}

// sdkHandler implements client.MetricsHandler on an sdkCollector.
type sdkHandler struct {
	c    *sdkCollector
	tags map[string]string
}

var _ client.MetricsHandler = sdkHandler{}

// WithTags returns a handler whose series also carry tags, which replace
// tags of the same name.
func (h sdkHandler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(h.tags)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, tags)
	return sdkHandler{c: h.c, tags: merged}
}

func (h sdkHandler) labels() prometheus.Labels {
	out := prometheus.Labels{}
	for k, v := range h.tags {
		out[sanitize(k)] = v
	}
	return out
}

// Counter returns a counter named name + "_total".
func (h sdkHandler) Counter(name string) client.MetricsCounter {
	c := h.c.get("counter", sanitize(name)+"_total", h.labels(), func(n string, l prometheus.Labels) prometheus.Collector {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: n, Help: "Temporal SDK counter " + name + ".", ConstLabels: l})
	}).(prometheus.Counter)
	return counterFunc(func(d int64) {
		if d > 0 {
			c.Add(float64(d))
		}
	})
}

// Gauge returns a gauge named name.
func (h sdkHandler) Gauge(name string) client.MetricsGauge {
	g := h.c.get("gauge", sanitize(name), h.labels(), func(n string, l prometheus.Labels) prometheus.Collector {
		return prometheus.NewGauge(prometheus.GaugeOpts{Name: n, Help: "Temporal SDK gauge " + name + ".", ConstLabels: l})
	}).(prometheus.Gauge)
	return gaugeFunc(g.Set)
}

// Timer returns a histogram in seconds named name + "_seconds".
func (h sdkHandler) Timer(name string) client.MetricsTimer {
	o := h.c.get("timer", sanitize(name)+"_seconds", h.labels(), func(n string, l prometheus.Labels) prometheus.Collector {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: n, Help: "Temporal SDK timer " + name + ".", ConstLabels: l, Buckets: sdkBuckets})
	}).(prometheus.Histogram)
	return timerFunc(func(d time.Duration) { o.Observe(d.Seconds()) })
}

// sanitize makes s a valid Prometheus metric or label name.
func sanitize(s string) string {
	b := []byte(s)
	for i, ch := range b {
		ok := ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

type (
	counterFunc func(int64)
	gaugeFunc   func(float64)
	timerFunc   func(time.Duration)
)

func (f counterFunc) Inc(d int64)          { f(d) }
func (f gaugeFunc) Update(v float64)       { f(v) }
func (f timerFunc) Record(d time.Duration) { f(d) }
