package bench

import (
	"time"
)

// LoadResult is what one load phase measured.
type LoadResult struct {
	N int
	// Rate is deliveries per second, from the first start sent to the last
	// delivery received.
	Rate float64
	// Ingest is start sent until accepted; EndToEnd is start sent until
	// the receiver had the delivery.
	Ingest, EndToEnd dist
	Usage            usage
	// Errors counts refused starts (each retried); Lost counts events
	// never accepted or never received.
	Errors, Lost int
}

// summarize computes a phase's figures from its sends and receipts.
func summarize(s *sends, recv []time.Time, u usage) LoadResult {
	r := LoadResult{N: len(recv), Usage: u, Errors: int(s.errors.Load())}
	var first, last time.Time
	for i, at := range recv {
		sent, acc := s.sent[i], s.accepted[i]
		if first.IsZero() || (!sent.IsZero() && sent.Before(first)) {
			first = sent
		}
		if acc.IsZero() || at.IsZero() {
			r.Lost++
		}
		if !acc.IsZero() {
			r.Ingest = append(r.Ingest, acc.Sub(sent))
		}
		if !at.IsZero() {
			r.EndToEnd = append(r.EndToEnd, at.Sub(sent))
			if at.After(last) {
				last = at
			}
		}
	}
	if span := last.Sub(first); span > 0 {
		r.Rate = float64(len(r.EndToEnd)) / span.Seconds()
	}
	return r
}
