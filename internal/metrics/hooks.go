package metrics

import "github.com/hookd/hookd/internal/delivery"

// Redrive outcomes.
const (
	RedriveStarted = "started" // a fresh delivery run started
	RedriveSkipped = "skipped" // the delivery had completed meanwhile: nothing to redrive
	RedriveFailed  = "error"   // the start failed; the activity retries
)

// DuplicateIngest counts an event whose deliveries all existed already. A
// nil Metrics counts nothing.
func (m *Metrics) DuplicateIngest() {
	if m != nil {
		m.duplicateIngests.Inc()
	}
}

// FilterError counts a content filter that failed on an event, by reason
// (contentfilter.Reason*, a bounded set). A nil Metrics counts nothing.
func (m *Metrics) FilterError(reason string) {
	if m != nil {
		m.filterErrors.WithLabelValues(reason).Inc()
	}
}

// DeliveryEnded counts a delivery that ended with status: delivered, or
// failed or exhausted (dead-lettered). A redriven delivery that ends again
// counts again. A nil Metrics counts nothing.
func (m *Metrics) DeliveryEnded(status delivery.Status) {
	if m != nil {
		m.deliveries.WithLabelValues(string(status)).Inc()
		if status != delivery.StatusDelivered {
			m.refreshSoon() // a new dead letter
		}
	}
}

// refreshSoon asks RunRefresh to read the gauges' sources again shortly
// (RefreshSettle), rather than at the end of its period.
func (m *Metrics) refreshSoon() {
	select {
	case m.soon <- struct{}{}:
	default: // one is asked for already
	}
}

// Redrive counts a redrive start by outcome (RedriveStarted, ...). A nil
// Metrics counts nothing.
func (m *Metrics) Redrive(outcome string) {
	if m != nil {
		m.redrives.WithLabelValues(outcome).Inc()
		if outcome == RedriveStarted {
			m.refreshSoon() // a dead letter closes
		}
	}
}
