package delivery

// A bulk redrive is a RedriveJob workflow (workflows.RedriveJob) that
// sends the redrive signal to every dead letter a visibility query
// selects, at the rate the job asked for: Temporal's own batcher takes
// its rate from the namespace's dynamic config (BatcherRPS), not from the
// request, so hookd paces the signals itself. Its RedrivePage activity
// (activities.Redrive) signals one page of dead letters at a time,
// waiting 1/rate between signals and heartbeating the ones it has done,
// so a crash resumes where it stopped and the job's progress stays true.

// Names the job's workflow, query and activity are registered under.
const (
	WorkflowRedriveJob   = "RedriveJob"
	QueryRedriveProgress = "progress"
	ActivityRedrivePage  = "RedrivePage"
)

// RedrivePageSize is the dead letters one page lists and signals.
const RedrivePageSize = 100

// RedriveJobInput is a bulk redrive job: what to signal, how fast, and how
// far it got (carried across continue-as-new).
type RedriveJobInput struct {
	// Query selects the waiting dead letters: a visibility.DeadLetters
	// query narrowed by the job's filter, as its String.
	Query string `json:"query"`
	// Rate is redrive signals per second.
	Rate   float64       `json:"rate"`
	Signal RedriveSignal `json:"signal"`
	// Total is how many dead letters matched when the job was asked.
	Total int64 `json:"total"`
	// Cursor is the visibility page token of the next page; Progress what
	// earlier runs did.
	Cursor   []byte          `json:"cursor,omitempty"`
	Progress RedriveProgress `json:"progress"`
}

// RedriveProgress counts a job's signals: Completed sent, Skipped for dead
// letters that had closed meanwhile (redriven or expired), Failed that
// could not be sent.
type RedriveProgress struct {
	Completed int64 `json:"completed"`
	Skipped   int64 `json:"skipped"`
	Failed    int64 `json:"failed"`
}

// Add is p plus q.
func (p RedriveProgress) Add(q RedriveProgress) RedriveProgress {
	return RedriveProgress{Completed: p.Completed + q.Completed, Skipped: p.Skipped + q.Skipped, Failed: p.Failed + q.Failed}
}

// RedrivePageInput is one activity's work: a page of the query from Cursor.
type RedrivePageInput struct {
	Query  string        `json:"query"`
	Cursor []byte        `json:"cursor,omitempty"`
	Rate   float64       `json:"rate"`
	Signal RedriveSignal `json:"signal"`
	// Wait says to wait one interval before the page's first signal (every
	// page but the job's first), so pages keep the pace.
	Wait bool `json:"wait,omitempty"`
}

// RedrivePageResult is what a page did, and the next page's cursor (nil
// when the query has no more).
type RedrivePageResult struct {
	RedriveProgress
	Next []byte `json:"next,omitempty"`
}

// RedriveHeartbeat is a page's progress as its heartbeat carries it: the
// dead letters done, so a retried attempt skips them.
type RedriveHeartbeat struct {
	Done []string `json:"done"`
	RedriveProgress
}
