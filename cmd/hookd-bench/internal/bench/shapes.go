package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/embedded"
)

// ShapesResult is the workflow-shape experiment behind the fan-out target
// (docs/performance.md): on hookd's embedded server, tuned as hookd runs it, but without
// hookd's API, store or codec, what Temporal costs per delivery when each
// delivery is a workflow, and when one workflow makes an event's
// deliveries. Every delivery is a signed POST in a local activity started
// eagerly, as hookd's first attempt is.
type ShapesResult struct {
	Width int
	// OneToOne: one workflow per event, one delivery each.
	OneToOne LoadResult
	// PerDelivery: Width workflows per event, one delivery each (hookd's
	// shape).
	PerDelivery LoadResult
	// PerEvent: one workflow per event making its Width deliveries as
	// concurrent local activities.
	PerEvent LoadResult
}

const (
	shapesQueue    = "shapes"
	shapesWorkflow = "ShapeDeliveries"
	shapesPost     = "ShapePost"
)

// shapeInput is an event and the receivers it goes to.
type shapeInput struct {
	EventID string
	URLs    []string
	Body    string
}

// shapeDeliveries posts the event to every URL, each in a local activity,
// all at once, and ends when all have answered.
func shapeDeliveries(ctx workflow.Context, in shapeInput) error {
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	futures := make([]workflow.Future, len(in.URLs))
	for i, u := range in.URLs {
		futures[i] = workflow.ExecuteLocalActivity(ctx, shapesPost, naiveInput{EventID: in.EventID, URL: u, Body: in.Body})
	}
	for _, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// runShapes measures the three shapes, each on its own server and data
// directory, ShapesN deliveries each.
func runShapes(ctx context.Context, cfg Config) (ShapesResult, error) {
	res := ShapesResult{Width: cfg.FanoutWidth}
	events := max(cfg.ShapesN/cfg.FanoutWidth, 1)
	for _, s := range []struct {
		name         string
		out          *LoadResult
		width, split int // receivers per event; workflows per event
		n            int
	}{
		{"shapes 1:1", &res.OneToOne, 1, 1, cfg.ShapesN},
		{"shapes fan-out, a workflow per delivery", &res.PerDelivery, cfg.FanoutWidth, cfg.FanoutWidth, events},
		{"shapes fan-out, a workflow per event", &res.PerEvent, cfg.FanoutWidth, 1, events},
	} {
		settle(ctx)
		r, err := runShape(ctx, cfg, s.name, s.width, s.split, s.n)
		*s.out = r
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// runShape starts an embedded server and a worker, then posts n events
// that each go to width receivers through split workflows.
func runShape(ctx context.Context, cfg Config, name string, width, split, n int) (LoadResult, error) {
	dir, err := os.MkdirTemp("", "hookd-shapes-")
	if err != nil {
		return LoadResult{}, err
	}
	defer os.RemoveAll(dir)
	addr, err := freeAddr()
	if err != nil {
		return LoadResult{}, err
	}
	srv, err := embedded.Start(embedded.Options{DataDir: dir, FrontendAddr: addr, Namespace: "default",
		Logger: cfg.HookdLog, LogLevel: slog.LevelError, Tuning: cfg.TemporalTuning})
	if err != nil {
		return LoadResult{}, err
	}
	defer srv.Stop()
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Namespace: "default",
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
		ConnectionOptions: client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionNone{}}})
	if err != nil {
		return LoadResult{}, fmt.Errorf("%s: connect: %w", name, err)
	}
	defer c.Close()
	poster, err := newNaivePoster()
	if err != nil {
		return LoadResult{}, err
	}
	w := worker.New(c, shapesQueue, worker.Options{MaxConcurrentWorkflowTaskExecutionSize: 256, MaxConcurrentLocalActivityExecutionSize: 256})
	w.RegisterWorkflowWithOptions(shapeDeliveries, workflow.RegisterOptions{Name: shapesWorkflow})
	w.RegisterActivityWithOptions(poster.Post, activity.RegisterOptions{Name: shapesPost})
	if err := w.Start(); err != nil {
		return LoadResult{}, fmt.Errorf("%s: worker: %w", name, err)
	}
	defer w.Stop()

	rcs := make([]*receiver, width)
	urls := make([]string, width)
	for i := range rcs {
		if rcs[i], err = startReceiver(); err != nil {
			return LoadResult{}, err
		}
		defer rcs[i].close()
		urls[i] = rcs[i].URL
	}
	// As ingest.Publisher: at most 32 eager starts in flight, so every
	// start stays eager.
	inFlight := make(chan struct{}, 32)
	startOne := func(ctx context.Context, workflowID, eventID string, urls []string) error {
		inFlight <- struct{}{}
		defer func() { <-inFlight }()
		opts := client.StartWorkflowOptions{ID: workflowID, TaskQueue: shapesQueue, EnableEagerStart: true}
		_, err := c.ExecuteWorkflow(ctx, opts, shapesWorkflow, shapeInput{EventID: eventID, URLs: urls, Body: string(payload)})
		return err
	}
	start := func(ctx context.Context, ids []string) error {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs error
		)
		for _, id := range ids {
			per := width / split
			for j := range split {
				wg.Go(func() {
					if err := startOne(ctx, id+"-"+strconv.Itoa(j), id, urls[j*per:(j+1)*per]); err != nil {
						mu.Lock()
						errs = err
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		return errs
	}
	if _, err := runLoadTo(ctx, cfg, rcs, loadSpec{name: name + " warm-up", ids: eventIDs("swarm", min(50, n)), start: start, clients: 16, batch: 1}); err != nil {
		return LoadResult{}, err
	}
	settle(ctx)
	return runLoadTo(ctx, cfg, rcs, loadSpec{name: name, ids: eventIDs("shape", n), start: start, clients: cfg.Clients, batch: 1})
}
