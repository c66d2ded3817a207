// Package redrive is hookd's bulk redrive: a workflow per job that sends
// the redrive signal to every dead letter a visibility query selects, at
// the rate the job asked for. Temporal's own batcher takes its rate from
// the namespace's dynamic config (BatcherRPS), not from the request, so
// hookd paces the signals itself: an activity signals one page of dead
// letters at a time, waiting 1/rate between signals and heartbeating the
// ones it has done, so a crash resumes where it stopped and the job's
// progress stays true. The workflow only orchestrates the pages.
package redrive
