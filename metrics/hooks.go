package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookd/hookd/delivery"
)

// Counters of events that happen where no Metrics is at hand (ingest, the
// dead-letter and redrive activities). They are process-wide, like the Go runtime's
// metrics, and every Metrics registry serves them.
var (
	duplicateIngests = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hookd_duplicate_ingests_total",
		Help: "Events posted again whose every delivery already existed.",
	})
	deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookd_deliveries_total",
		Help: "Deliveries ended, by final status: delivered, failed (a permanent failure) or exhausted (every attempt used).",
	}, []string{"status"})
	redrives = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookd_redrives_total",
		Help: "Redrive starts of dead letters, by outcome (started, skipped, error).",
	}, []string{"outcome"})
)

// Redrive outcomes.
const (
	RedriveStarted = "started" // a fresh delivery run started
	RedriveSkipped = "skipped" // the delivery had completed meanwhile: nothing to redrive
	RedriveFailed  = "error"   // the start failed; the activity retries
)

// DuplicateIngest counts an event whose deliveries all existed already.
func DuplicateIngest() { duplicateIngests.Inc() }

// DeliveryEnded counts a delivery that ended with status: delivered, or
// failed or exhausted (dead-lettered). A redriven delivery that ends again
// counts again.
func DeliveryEnded(status delivery.Status) { deliveries.WithLabelValues(string(status)).Inc() }

// Redrive counts a redrive start by outcome (RedriveStarted, ...).
func Redrive(outcome string) { redrives.WithLabelValues(outcome).Inc() }
