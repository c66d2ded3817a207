package cli

import (
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/metrics"
)

// limitFlags defines the API's quota flags (hookd dev, api and serve) on
// fs, into l; a negative value switches a limit off.
func limitFlags(fs envFlags, l *api.Limits) {
	fs.integer(&l.EndpointsPerTenant, "limit-endpoints-per-tenant", "HOOKD_LIMIT_ENDPOINTS_PER_TENANT", api.DefaultEndpointsPerTenant,
		"most endpoints one tenant may have; more are refused with 409 (negative: no limit)")
	fs.integer(&l.TestEventsPerMinute, "limit-test-events-per-minute", "HOOKD_LIMIT_TEST_EVENTS_PER_MINUTE", api.DefaultTestEventsPerMinute,
		"most test events per endpoint per minute, per process; more are answered 429 (negative: no limit)")
	fs.Float64Var(&l.RequestsPerSecond, "limit-requests-per-second", api.DefaultRequestsPerSecond,
		"API requests per second per tenant token, per process (the API keys are not limited); more are answered 429 (negative: no limit) ($HOOKD_LIMIT_REQUESTS_PER_SECOND)")
	fs.bind("limit-requests-per-second", "HOOKD_LIMIT_REQUESTS_PER_SECOND")
	fs.integer(&l.RequestBurst, "limit-request-burst", "HOOKD_LIMIT_REQUEST_BURST", api.DefaultRequestBurst,
		"API requests one tenant token may make at once above the rate")
}

// metricsSeriesFlag defines the flag bounding the per-endpoint metric
// series.
func metricsSeriesFlag(fs envFlags, n *int) {
	fs.integer(n, "metrics-endpoint-series", "HOOKD_METRICS_ENDPOINT_SERIES", metrics.DefaultMaxEndpointSeries,
		`endpoints the metrics label one by one; attempts of the others count under endpoint_id="other" (negative: no bound)`)
}

// requireEventTypesFlag defines --require-event-types (hookd dev, api and
// serve): refuse posted events of types the event-type catalog lacks.
func requireEventTypesFlag(fs envFlags, p *bool) {
	fs.boolean(p, "require-event-types", "HOOKD_REQUIRE_EVENT_TYPES", false,
		"refuse (400 naming type) posted events whose type the event-type catalog (/v1/event-types) does not have; by default they are accepted")
}
