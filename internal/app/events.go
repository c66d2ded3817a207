package app

import (
	"cmp"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/delivery"
)

// checkWindows refuses a dead-letter retention that, after the default
// retry schedule's longest run, would outlive the dedup window: the event
// record would be pruned while its dead letter waits, and a re-post could
// then start the delivery afresh beside the redrive.
func checkWindows(retention, deadLetter time.Duration) error {
	deadLetter = cmp.Or(deadLetter, activities.DefaultDeadLetterRetention)
	span := delivery.Span(delivery.DefaultSchedule(), delivery.DefaultTimeout).Round(time.Minute)
	switch {
	case retention < span+activities.MinDeadLetterWait:
		return fmt.Errorf("retention %s is shorter than a delivery's longest run on the default retry schedule (%s) plus a dead letter's wait: raise it to at least %s",
			retention, span, span+activities.MinDeadLetterWait)
	case deadLetter < activities.MinDeadLetterWait || deadLetter+span > retention:
		return fmt.Errorf("dead-letter retention %s does not fit the dedup window: a dead letter must end within the retention (%s) of its event, and the default retry schedule runs up to %s, so it must be %s to %s (or raise the retention)",
			deadLetter, retention, span, activities.MinDeadLetterWait, retention-span)
	}
	return nil
}
