package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/temporaltest"

	"github.com/hookd/hookd/signing"
)

// BaselineResult is what the run measured of the naive design.
type BaselineResult struct {
	Light, Saturation LoadResult
	History           HistoryResult
}

const naiveQueue = "naive"

// naiveInput is the naive workflow's input: the event and where it goes.
type naiveInput struct {
	EventID string
	URL     string
	Body    string
}

// naiveDelivery is the naive design: one workflow per delivery, one
// regular activity that makes the signed POST, retried by Temporal.
func naiveDelivery(ctx workflow.Context, in naiveInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 10},
	})
	return workflow.ExecuteActivity(ctx, naivePostName, in).Get(ctx, nil)
}

const naivePostName = "NaivePost"

// naivePoster is the naive activity's dependencies.
type naivePoster struct {
	hc     *http.Client
	signer signing.Signer
}

// newNaivePoster is the naive poster with a fresh signing key.
func newNaivePoster() (*naivePoster, error) {
	secret, err := signing.NewSecret()
	if err != nil {
		return nil, err
	}
	key, err := signing.DecodeSecret(secret)
	if err != nil {
		return nil, err
	}
	return &naivePoster{hc: &http.Client{Timeout: 10 * time.Second}, signer: signing.Signer{HMACKeys: [][]byte{key}}}, nil
}

// Post signs the body as Standard Webhooks and POSTs it.
func (p *naivePoster) Post(ctx context.Context, in naiveInput) error {
	now := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, bytes.NewReader([]byte(in.Body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(signing.HeaderID, in.EventID)
	req.Header.Set(signing.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(signing.HeaderSignature, p.signer.Sign(in.EventID, now, []byte(in.Body)))
	req.Header.Set(headerEventID, in.EventID)
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// runBaseline measures the naive design on the stock temporaltest server.
func runBaseline(ctx context.Context, cfg Config) (BaselineResult, error) {
	var res BaselineResult
	// Stock: the SDK's default workflow cache, not the size hookd set.
	worker.SetStickyWorkflowCacheSize(10_000)
	ts := temporaltest.NewServer()
	defer ts.Stop()
	rc, err := startReceiver()
	if err != nil {
		return res, err
	}
	defer rc.close()
	poster, err := newNaivePoster()
	if err != nil {
		return res, err
	}
	ts.NewWorker(naiveQueue, func(r worker.Registry) {
		r.RegisterWorkflowWithOptions(naiveDelivery, workflow.RegisterOptions{Name: "NaiveDelivery"})
		r.RegisterActivityWithOptions(poster.Post, activity.RegisterOptions{Name: naivePostName})
	})
	c := ts.GetDefaultClient()
	start := func(ctx context.Context, ids []string) error {
		for _, id := range ids {
			opts := client.StartWorkflowOptions{ID: id, TaskQueue: naiveQueue}
			if _, err := c.ExecuteWorkflow(ctx, opts, "NaiveDelivery", naiveInput{EventID: id, URL: rc.URL, Body: string(payload)}); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := runLoad(ctx, cfg, rc, loadSpec{name: "baseline warm-up", ids: eventIDs("bwarm", min(50, cfg.BaselineN)), start: start, clients: 16, batch: 1}); err != nil {
		return res, err
	}
	if cfg.LightDuration > 0 {
		n := int(cfg.LightRate * cfg.LightDuration.Seconds())
		settle(ctx)
		if res.Light, err = runLoad(ctx, cfg, rc, loadSpec{name: "baseline light", ids: eventIDs("blight", n), start: start, rate: cfg.LightRate}); err != nil {
			return res, err
		}
	}
	settle(ctx)
	sat := loadSpec{name: "baseline saturation", ids: eventIDs("bsat", cfg.BaselineN), start: start, clients: cfg.BaselineStarters, batch: 1}
	if res.Saturation, err = runLoad(ctx, cfg, rc, sat); err != nil {
		return res, err
	}
	if res.History, err = sampleHistory(ctx, c, sat.ids, cfg.HistorySample); err != nil {
		return res, fmt.Errorf("baseline history: %w", err)
	}
	return res, nil
}
