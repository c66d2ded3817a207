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
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// NewPublisher starts a publisher on sink; Close stops it.
func NewPublisher(sink Sink, logger *slog.Logger) *Publisher {
	if logger == nil {
		logger = slog.Default()
	}
	p := &Publisher{sink: sink, log: logger, retryEvery: RetryEvery, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
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

func (p *Publisher) run() {
	defer close(p.done)
	var retry <-chan time.Time
	for {
		select {
		case <-p.stop:
			return
		case <-p.wake:
		case <-retry:
		}
		retry = nil
		if !p.flush(context.Background()) {
			retry = time.After(p.retryEvery)
		}
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

// Close stops the publisher after one last try at what is queued, within
// ctx. A nil Publisher closes as a no-op.
func (p *Publisher) Close(ctx context.Context) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	p.flush(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) > 0 {
		p.log.Warn("operational events dropped at shutdown", "count", len(p.queue))
	}
}
