package bench

import (
	"time"
)

// LoadResult is what one load phase measured.
type LoadResult struct {
	// N is the deliveries: events times receivers.
	N int
	// Events is how many events were posted.
	Events int
	// Rate is deliveries per second, from the first start sent to the last
	// delivery received.
	Rate float64
	// Ingest is start sent until accepted (per event); EndToEnd is start
	// sent until the receiver had the delivery (per delivery).
	Ingest, EndToEnd dist
	Usage            usage
	// Errors counts refused starts (each retried); Lost counts deliveries
	// never accepted or never received.
	Errors, Lost int
}

// summarize computes a phase's figures from its sends and receipts: recv
// holds, per receiver, when each event arrived there.
func summarize(s *sends, recv [][]time.Time, u usage) LoadResult {
	r := LoadResult{N: len(s.sent) * len(recv), Events: len(s.sent), Usage: u, Errors: int(s.errors.Load())}
	var first, last time.Time
	for i, sent := range s.sent {
		acc := s.accepted[i]
		if first.IsZero() || (!sent.IsZero() && sent.Before(first)) {
			first = sent
		}
		if !acc.IsZero() {
			r.Ingest = append(r.Ingest, acc.Sub(sent))
		}
		for _, at := range recv {
			if acc.IsZero() || at[i].IsZero() {
				r.Lost++
			}
			if !at[i].IsZero() {
				r.EndToEnd = append(r.EndToEnd, at[i].Sub(sent))
				if at[i].After(last) {
					last = at[i]
				}
			}
		}
	}
	if span := last.Sub(first); span > 0 {
		r.Rate = float64(len(r.EndToEnd)) / span.Seconds()
	}
	return r
}
