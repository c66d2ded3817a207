package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/hookd/hookd/apiclient"
)

// followJob polls a redrive job until it ends, showing its progress, then
// prints the totals. It fails when the job failed or any redrive did.
func (e *clientEnv) followJob(ctx context.Context, c *apiclient.Client, jobID string, matched int64) error {
	bar := &progress{w: e.stdout, tty: e.tty, matched: matched}
	tick := time.NewTicker(e.poll)
	defer tick.Stop()
	for misses := 0; ; {
		job, err := c.RedriveJob(ctx, jobID)
		switch {
		case apiclient.IsNotFound(err) && misses < 20:
			misses++ // a job just started may not be visible yet
		case err != nil && ctx.Err() == nil:
			bar.end()
			return err
		case err != nil: // ctx is done: stop below
		case job.State == "completed" || job.State == "failed":
			bar.draw(job)
			bar.end()
			return e.jobTotals(job, matched)
		default:
			bar.draw(job)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
			continue
		}
		bar.end()
		return fmt.Errorf("stopped watching; job %s goes on inside Temporal (follow it with `hookd dlq job %s`): %w", jobID, jobID, ctx.Err())
	}
}

func (e *clientEnv) jobTotals(job *apiclient.RedriveJob, matched int64) error {
	took := ""
	if !job.Closed.IsZero() && !job.Started.IsZero() {
		took = " in " + job.Closed.Sub(job.Started).Round(time.Second).String()
	}
	fmt.Fprintf(e.stdout, "Redrive job %s %s%s: %d redriven, %d failed, of %d.\n",
		job.JobID, job.State, took, job.Completed, job.Failed, max(job.Total, matched))
	switch {
	case job.State != "completed":
		return fmt.Errorf("redrive job %s %s", job.JobID, job.State)
	case job.Failed > 0:
		return fmt.Errorf("redrive job %s: %d of %d redrives failed", job.JobID, job.Failed, max(job.Total, matched))
	}
	return nil
}

// progress draws a job's progress: a bar redrawn in place on a terminal
// (github.com/schollz/progressbar), else a line whenever the counts change.
type progress struct {
	w       io.Writer
	tty     bool
	matched int64
	last    string
	bar     *progressbar.ProgressBar
}

const barWidth = 30

func (p *progress) draw(job *apiclient.RedriveJob) {
	total := max(job.Total, p.matched)
	done := job.Completed + job.Failed
	pct := int64(100)
	if total > 0 {
		pct = min(100, done*100/total)
	}
	counts := fmt.Sprintf("%d/%d %3d%%", done, total, pct)
	if job.Failed > 0 {
		counts += fmt.Sprintf(", %d failed", job.Failed)
	}
	if counts == p.last {
		return
	}
	p.last = counts
	if !p.tty {
		fmt.Fprintf(p.w, "redriven %s\n", counts)
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(barWidth),
			progressbar.OptionSetDescription("redriven"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionThrottle(0),
		)
	}
	if p.bar.GetMax64() != total {
		p.bar.ChangeMax64(total)
	}
	if job.Failed > 0 {
		p.bar.Describe(fmt.Sprintf("redriven (%d failed)", job.Failed))
	}
	_ = p.bar.Set64(done)
}

// end finishes the bar's line on a terminal.
func (p *progress) end() {
	if p.bar != nil {
		_ = p.bar.Exit()
		fmt.Fprintln(p.w)
		p.bar = nil
	}
}
