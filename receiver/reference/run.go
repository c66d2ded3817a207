package reference

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hookd/hookd/receiver"
)

// shutdownGrace bounds how long Serve waits for requests in flight.
const shutdownGrace = 5 * time.Second

// workerPoll is how often the inbox worker looks for new rows.
const workerPoll = 200 * time.Millisecond

// Run starts a receiver for cfg, listens on cfg.Addr and serves until ctx is
// done, then shuts down gracefully and closes the database.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Addr == "" {
		return errors.New("reference receiver: no listen address")
	}
	r, err := New(cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("reference receiver: listen: %w", err)
	}
	return r.Serve(ctx, ln)
}

// Serve serves on ln until ctx is done, with an inbox worker marking the
// recorded deliveries completed. It closes ln, not the database.
func (r *Receiver) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	worker, err := receiver.NewWorker(r.db, receiver.SQLite, r.complete, receiver.WorkerOptions{Logger: r.log, PollInterval: workerPoll})
	if err != nil {
		ln.Close()
		return fmt.Errorf("reference receiver: %w", err)
	}
	wctx, stopWorker := context.WithCancel(ctx)
	workerDone := make(chan struct{})
	go func() {
		defer close(workerDone)
		_ = worker.Run(wctx) // returns nil when wctx is done
	}()
	defer func() { stopWorker(); <-workerDone }()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	r.log.InfoContext(ctx, "reference receiver listening", "addr", ln.Addr().String())
	select {
	case err := <-served:
		return fmt.Errorf("reference receiver: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("reference receiver: shutdown: %w", err)
	}
	return nil
}

// complete is the worker's processing: the effect was already written with
// the inbox row, so there is nothing left to do but mark the row completed.
func (r *Receiver) complete(ctx context.Context, d *receiver.Delivery) error {
	r.log.DebugContext(ctx, "delivery processed", "webhook_id", d.ID, "event_type", d.EventType)
	return nil
}
