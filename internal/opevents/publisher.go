package opevents

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/ingest"
)

// Sink publishes an event to its subscribers: ingest.Publisher.
type Sink interface {
	Publish(ctx context.Context, ev ingest.Event) (ingest.Result, error)
}

// Publisher defaults.
const (
	// MaxQueued bounds the events waiting to be published; beyond it the
	// oldest is dropped (and logged).
	MaxQueued = 100
	// RetryEvery is how long a failed publish waits before the next try.
	RetryEvery = 5 * time.Second
	// publishTimeout bounds one publish.
	publishTimeout = 30 * time.Second
)

// Publisher publishes health events in the background. Publish only
// queues: the producer goes on at once. Events that fail to publish are
// tried again every RetryEvery with the same ID, so a success that was
// not reported deduplicates. Queued events live in memory: a process that
// stops with some queued logs how many it drops.
type Publisher struct {
	sink       Sink
	log        *slog.Logger
	retryEvery time.Duration

	mu     sync.Mutex
	queue  []ingest.Event
	wake   chan struct{}
	closed bool
}

// finalPublish bounds the last try Run makes at what is queued as it stops.
const finalPublish = 5 * time.Second

// NewPublisher returns a publisher on sink; its loop is Run.
func NewPublisher(sink Sink, logger *slog.Logger) *Publisher {
	if logger == nil {
		logger = slog.Default()
	}
	return &Publisher{sink: sink, log: logger, retryEvery: RetryEvery, wake: make(chan struct{}, 1)}
}

// Publish queues a health event of the given type without waiting.
func (p *Publisher) Publish(eventType string, h Health) {
	ev, err := h.event(eventType)
	if err != nil {
		p.log.Error("operational event dropped", "event_type", eventType, "error", err)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.log.Warn("operational event dropped: publisher closed", "event_type", eventType, "endpoint_id", h.EndpointID)
		return
	}
	if len(p.queue) >= MaxQueued {
		p.log.Warn("operational event dropped: queue full", "event_id", p.queue[0].ID)
		p.queue = p.queue[1:]
	}
	p.queue = append(p.queue, ev)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run publishes what Publish queues until ctx is done, then refuses new
// events, makes one last try at what is queued (within finalPublish) and
// returns, logging what it drops. A nil Publisher returns at once.
func (p *Publisher) Run(ctx context.Context) {
	if p == nil {
		return
	}
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			p.stop(ctx)
			return
		case <-p.wake:
		case <-retry:
		}
		retry = nil
		if !p.flush(ctx) {
			retry = time.After(p.retryEvery)
		}
	}
}

// stop closes the publisher to new events and tries what is queued once.
func (p *Publisher) stop(ctx context.Context) {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalPublish)
	defer cancel()
	p.flush(fctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) > 0 {
		p.log.Warn("operational events dropped at shutdown", "count", len(p.queue))
	}
}

// flush publishes what is queued and keeps what fails; it reports whether
// everything was published.
func (p *Publisher) flush(ctx context.Context) bool {
	p.mu.Lock()
	batch := p.queue
	p.queue = nil
	p.mu.Unlock()
	var failed []ingest.Event
	for _, ev := range batch {
		pctx, cancel := context.WithTimeout(ctx, publishTimeout)
		_, err := p.sink.Publish(pctx, ev)
		cancel()
		if err != nil {
			p.log.Warn("publish operational event", "event_id", ev.ID, "error", err)
			failed = append(failed, ev)
		}
	}
	if len(failed) == 0 {
		return true
	}
	p.mu.Lock()
	p.queue = append(failed, p.queue...)
	if over := len(p.queue) - MaxQueued; over > 0 {
		p.queue = p.queue[over:]
	}
	p.mu.Unlock()
	return false
}
