package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// ThrottleResult is the rate-limit phase: ThrottleN events to an endpoint
// limited to ThrottleRate/s (burst ThrottleBurst) beside an unlimited
// endpoint receiving ThrottleN at the same time, the same flood beside
// ThrottleN posted at ThrottleRate/s to a third, unlimited endpoint (the
// same deliveries at the same pace, without a limiter or a backlog to
// accept), the unlimited endpoint alone before and after (interleaved,
// as other work on the machine drifts), and the cost of a throttled
// delivery against an unthrottled one arriving at the same pace.
type ThrottleResult struct {
	N, PerSecond, Burst int
	// Alone and AloneAgain are the unlimited endpoint by itself, before
	// and after Together.
	Alone, AloneAgain LoadResult
	// Together is both at once: Unlimited's and Limited's deliveries.
	Unlimited, Limited LoadResult
	// Beside is the unlimited flood again beside BesidePaced, ThrottleN
	// posted at the limit's rate to another unlimited endpoint.
	Beside, BesidePaced LoadResult
	// Of Limited's arrivals: the most in any 20 ms window, the fewest and
	// most in a whole second after the first, and the rate from the
	// burst's end to the last.
	MaxIn20ms, MinPerSecond, MaxPerSecond int
	LimitedRate                           float64
	// Over are the windows of 20 ms holding more than Burst arrivals:
	// their first arrival's offset from the run's first.
	Over []time.Duration
	// OverSpacing is the first such window's arrivals: each one's offset
	// from the window's first.
	OverSpacing []time.Duration
	// PerSecond is Limited's arrivals in each second after the first.
	PerSecondSeries []int
	// TogetherStarts is how late Limited's delayed starts began.
	TogetherStarts StartLag
	// Duplicates are requests beyond an event's first, at both receivers
	// of Together; LimitedRequests every request the limited receiver
	// answered; MaxAttempts the most attempts of a sample of its
	// deliveries as hookd counts them.
	Duplicates, LimitedRequests, MaxAttempts int
	// Pairs are the rounds of the same deliveries at the same pace,
	// without and with the limiter, interleaved so that the machine's
	// drift from minute to minute falls on both alike.
	Pairs []CostPair
	// Writes are the store's rows written per delivery in each phase (of
	// the first pair).
	AloneWrites, PacedWrites, ThrottledWrites float64
	// ThrottledStarts is how late the first pair's throttled delayed
	// starts began, and
	// its deliveries by the length of their history: 6 events is the
	// happy path, more is a wait on a workflow timer after the start.
	ThrottledStarts StartLag

	limitedIDs []string // Together's limited events
}

// CostPair is one round of the cost of a throttled delivery: Paced is the
// unlimited endpoint receiving N posted at PerSecond, Throttled the
// limited one receiving N posted at once.
type CostPair struct {
	Paced, Throttled LoadResult
}

// Ratio is the round's CPU per throttled delivery over the unthrottled.
func (p CostPair) Ratio() float64 {
	return ratioOf(cpuPerDelivery(p.Throttled), cpuPerDelivery(p.Paced))
}

const (
	throttledType   = "bench.throttled"
	unthrottledType = "bench.unthrottled"
	besideType      = "bench.paced-beside"
	// throttleSample is how many limited deliveries' attempts are read.
	throttleSample = 50
)

// runThrottle runs the rate-limit phase on h.
func runThrottle(ctx context.Context, cfg Config, h *hookdTarget) (ThrottleResult, error) {
	res := ThrottleResult{N: cfg.ThrottleN, PerSecond: cfg.ThrottleRate, Burst: cfg.ThrottleBurst}
	free, err := startReceiverProcess()
	if err != nil {
		return res, err
	}
	defer free.close()
	limited, err := startReceiverProcess()
	if err != nil {
		return res, err
	}
	defer limited.close()
	if _, err := h.createEndpoint(ctx, free.URL, unthrottledType, nil); err != nil {
		return res, err
	}
	limitedID, err := h.createLimitedEndpoint(ctx, limited.URL, throttledType, cfg.ThrottleRate, cfg.ThrottleBurst)
	if err != nil {
		return res, err
	}
	spec := func(name string, rate float64, limit bool) loadSpec {
		t, prefix := unthrottledType, "free"
		if limit {
			t, prefix = throttledType, "limited"
		}
		return loadSpec{name: "hookd throttle " + name, ids: eventIDs(prefix+" "+name, cfg.ThrottleN), start: h.apiStarter(t), rate: rate, clients: cfg.Clients, batch: cfg.Batch}
	}
	if res.Alone, err = res.measured(ctx, h, cfg, free, spec("alone", 0, false), &res.AloneWrites); err != nil {
		return res, err
	}
	if err := res.together(ctx, cfg, free, limited, spec("together", 0, false), spec("together", 0, true)); err != nil {
		return res, err
	}
	if res.MaxAttempts, err = h.maxAttempts(ctx, deliveryIDs(res.limitedIDs, limitedID)); err != nil {
		return res, err
	}
	if res.TogetherStarts, err = startLags(ctx, h.dev.Client, deliveryIDs(res.limitedIDs, limitedID)); err != nil {
		return res, err
	}
	if err := res.besidePaced(ctx, cfg, h, free, spec("beside", 0, false)); err != nil {
		return res, err
	}
	if res.AloneAgain, err = res.measured(ctx, h, cfg, free, spec("alone again", 0, false), nil); err != nil {
		return res, err
	}
	for round := range cfg.ThrottleRounds {
		if err := res.costPair(ctx, cfg, h, round, free, limited, limitedID, spec); err != nil {
			return res, err
		}
	}
	return res, nil
}

// costPair runs one round of the same deliveries at the limit's pace
// without the limiter and with it. The first round's phases write the
// profiles and count the store's rows and the throttled starts' lags.
func (res *ThrottleResult) costPair(ctx context.Context, cfg Config, h *hookdTarget, round int, free, limited *receiver, limitedID string, spec func(string, float64, bool) loadSpec) error {
	name := func(s string) string {
		if round == 0 {
			return s
		}
		return fmt.Sprintf("%s %d", s, round+1)
	}
	first := round == 0
	paced := spec(name("paced"), float64(cfg.ThrottleRate), false)
	throttled := spec(name("throttled"), 0, true)
	var pacedWrites, throttledWrites *float64
	if first {
		paced.profile, throttled.profile = cfg.PacedProfile, cfg.ThrottleProfile
		pacedWrites, throttledWrites = &res.PacedWrites, &res.ThrottledWrites
	}
	var (
		pair CostPair
		err  error
	)
	if pair.Paced, err = res.measured(ctx, h, cfg, free, paced, pacedWrites); err != nil {
		return err
	}
	if pair.Throttled, err = res.measured(ctx, h, cfg, limited, throttled, throttledWrites); err != nil {
		return err
	}
	res.Pairs = append(res.Pairs, pair)
	if first {
		res.ThrottledStarts, err = startLags(ctx, h.dev.Client, deliveryIDs(throttled.ids, limitedID))
	}
	return err
}

// measured runs s to rc once the machine settled and, with writes, counts
// the store's rows written per delivery meanwhile.
func (res *ThrottleResult) measured(ctx context.Context, h *hookdTarget, cfg Config, rc *receiver, s loadSpec, writes *float64) (LoadResult, error) {
	settle(ctx)
	before, err := h.dev.StoreWrites(ctx)
	if err != nil {
		return LoadResult{}, err
	}
	r, err := runLoad(ctx, cfg, rc, s)
	after, werr := h.dev.StoreWrites(ctx)
	if err == nil {
		err = werr
	}
	if writes != nil && r.N > 0 {
		*writes = float64(after-before) / float64(r.N)
	}
	return r, err
}

// together posts both specs at once and measures the limited receiver's
// arrivals.
func (res *ThrottleResult) together(ctx context.Context, cfg Config, free, limited *receiver, fs, ls loadSpec) error {
	freeBefore, limitedBefore := free.requests(), limited.requests()
	var err error
	if res.Unlimited, res.Limited, err = both(ctx, cfg, free, limited, fs, ls); err != nil {
		return fmt.Errorf("throttle together: %w", err)
	}
	res.limitedIDs = ls.ids
	res.LimitedRequests = limited.requests() - limitedBefore
	res.Duplicates = res.LimitedRequests - len(ls.ids) + free.requests() - freeBefore - len(fs.ids)
	_, at := limited.received(ls.ids)
	res.spacing(at)
	return nil
}

// besidePaced posts the unlimited flood fs beside N events posted at the
// limit's rate to a third, unlimited endpoint of its own.
func (res *ThrottleResult) besidePaced(ctx context.Context, cfg Config, h *hookdTarget, free *receiver, fs loadSpec) error {
	rc, err := startReceiverProcess()
	if err != nil {
		return err
	}
	defer rc.close()
	if _, err := h.createEndpoint(ctx, rc.URL, besideType, nil); err != nil {
		return err
	}
	ps := loadSpec{name: "hookd throttle paced beside", ids: eventIDs("paced beside", res.N), start: h.apiStarter(besideType), rate: float64(res.PerSecond), batch: cfg.Batch}
	if res.Beside, res.BesidePaced, err = both(ctx, cfg, free, rc, fs, ps); err != nil {
		return fmt.Errorf("throttle beside paced: %w", err)
	}
	return nil
}

// both runs a's load to ra and b's to rb at once, half the clients each,
// once the machine settled.
func both(ctx context.Context, cfg Config, ra, rb *receiver, a, b loadSpec) (LoadResult, LoadResult, error) {
	settle(ctx)
	a.clients, b.clients = max(1, cfg.Clients/2), max(1, cfg.Clients/2)
	var (
		wg         sync.WaitGroup
		ar, br     LoadResult
		aerr, berr error
	)
	wg.Go(func() { ar, aerr = runLoad(ctx, cfg, ra, a) })
	wg.Go(func() { br, berr = runLoad(ctx, cfg, rb, b) })
	wg.Wait()
	return ar, br, errors.Join(aerr, berr)
}

// spacing computes the limited arrivals' window and per-second figures.
func (res *ThrottleResult) spacing(at []time.Time) {
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	if len(at) < 2 || at[0].IsZero() {
		return
	}
	lo := 0
	for hi := range at {
		for at[hi].Sub(at[lo]) >= 20*time.Millisecond {
			lo++
		}
		res.MaxIn20ms = max(res.MaxIn20ms, hi-lo+1)
		if hi-lo+1 > res.Burst && (len(res.Over) == 0 || res.Over[len(res.Over)-1] != at[lo].Sub(at[0])) {
			res.Over = append(res.Over, at[lo].Sub(at[0]))
		}
		if hi-lo+1 > res.Burst && res.OverSpacing == nil {
			for _, t := range at[lo : hi+1] {
				res.OverSpacing = append(res.OverSpacing, t.Sub(at[lo]).Round(100*time.Microsecond))
			}
		}
	}
	// Whole seconds after the first, the burst's, and before the last,
	// partial one.
	perSecond := map[int]int{}
	for _, t := range at {
		perSecond[int(t.Sub(at[0])/time.Second)]++
	}
	whole := int(at[len(at)-1].Sub(at[0]) / time.Second)
	res.MinPerSecond = len(at)
	for s := 1; s < whole; s++ {
		res.MinPerSecond, res.MaxPerSecond = min(res.MinPerSecond, perSecond[s]), max(res.MaxPerSecond, perSecond[s])
		res.PerSecondSeries = append(res.PerSecondSeries, perSecond[s])
	}
	if whole < 2 {
		res.MinPerSecond = 0
	}
	if n := len(at) - res.Burst; n > 0 {
		res.LimitedRate = float64(n) / at[len(at)-1].Sub(at[res.Burst-1]).Seconds()
	}
}

// createLimitedEndpoint subscribes url to eventType with a rate limit and
// returns the endpoint ID.
func (h *hookdTarget) createLimitedEndpoint(ctx context.Context, url, eventType string, perSecond, burst int) (string, error) {
	body := map[string]any{"url": url, "event_types": []string{eventType}, "rate_limit": map[string]int{"per_second": perSecond, "burst": burst}}
	var ep wire.Endpoint
	if err := h.call(ctx, http.MethodPost, "/v1/endpoints", body, &ep, http.StatusCreated); err != nil {
		return "", fmt.Errorf("create limited endpoint: %w", err)
	}
	return ep.ID, nil
}

// maxAttempts reads a sample of the deliveries through the API and
// returns the most attempts one of them made.
func (h *hookdTarget) maxAttempts(ctx context.Context, ids []string) (int, error) {
	most := 0
	step := max(1, len(ids)/throttleSample)
	for i := 0; i < len(ids); i += step {
		var d wire.Delivery
		if err := h.call(ctx, http.MethodGet, "/v1/deliveries/"+ids[i], nil, &d, http.StatusOK); err != nil {
			return most, fmt.Errorf("throttle: read delivery: %w", err)
		}
		most = max(most, d.Attempts)
	}
	return most, nil
}

// reportThrottle writes the rate-limit phase.
func reportThrottle(w io.Writer, t ThrottleResult) {
	fmt.Fprintf(w, "\nrate limit: %d events to an endpoint limited to %d/s (burst %d) beside an unlimited endpoint receiving %d at the same time\n\n", t.N, t.PerSecond, t.Burst, t.N)
	fmt.Fprintf(w, "| %-44s | %-22s |\n| --- | --- |\n", "measure", "hookd")
	kv(w, "limited: most arrivals in any 20 ms", fmt.Sprintf("%d (burst %d)", t.MaxIn20ms, t.Burst))
	if len(t.Over) > 0 {
		kv(w, "limited: windows over the burst, from the first", strings.Trim(fmt.Sprint(t.Over[:min(10, len(t.Over))]), "[]"))
		kv(w, "limited: the first such window's arrivals", strings.Trim(fmt.Sprint(t.OverSpacing), "[]"))
	}
	kv(w, "limited: arrivals per whole second", fmt.Sprintf("%d-%d (limit %d)", t.MinPerSecond, t.MaxPerSecond, t.PerSecond))
	kv(w, "limited: arrivals in seconds 1-15", strings.Trim(fmt.Sprint(t.PerSecondSeries[:min(15, len(t.PerSecondSeries))]), "[]"))
	kv(w, "limited: start timer late p50 / p90 / max", quantiles(t.TogetherStarts.Timer))
	kv(w, "limited: first task dispatch p50 / p90 / max", quantiles(t.TogetherStarts.Dispatch))
	kv(w, "limited deliveries by history events", histogram(t.TogetherStarts.Lengths))
	kv(w, "limited: rate after the burst", fmt.Sprintf("%.2f/s (%+.1f%%)", t.LimitedRate, 100*(t.LimitedRate/float64(t.PerSecond)-1)))
	kv(w, "limited: requests / most attempts (sampled)", fmt.Sprintf("%d for %d events / %d", t.LimitedRequests, t.N, t.MaxAttempts))
	kv(w, "duplicates (both receivers)", fmt.Sprint(t.Duplicates))
	finish := func(r LoadResult) time.Duration {
		if r.Rate <= 0 {
			return 0
		}
		return time.Duration(float64(r.N) / r.Rate * float64(time.Second)).Round(time.Millisecond)
	}
	kv(w, "unlimited: finish alone / together / alone", fmt.Sprintf("%s / %s / %s", finish(t.Alone), finish(t.Unlimited), finish(t.AloneAgain)))
	kv(w, "unlimited together vs mean alone", fmt.Sprintf("%+.1f%%", 100*(float64(finish(t.Unlimited))/(float64(finish(t.Alone)+finish(t.AloneAgain))/2)-1)))
	kv(w, "unlimited: CPU alone / together (the limited's share)", cpuBeside(t, t.Unlimited))
	kv(w, fmt.Sprintf("unlimited: finish beside %d at %d/s to an unlimited endpoint", t.N, t.PerSecond), fmt.Sprintf("%s (%+.1f%% vs mean alone)", finish(t.Beside), 100*(float64(finish(t.Beside))/(float64(finish(t.Alone)+finish(t.AloneAgain))/2)-1)))
	kv(w, "unlimited: CPU beside them (their share)", cpuBeside(t, t.Beside))
	for i, p := range t.Pairs {
		kv(w, fmt.Sprintf("CPU ms per delivery at %d/s, round %d: unthrottled / throttled", t.PerSecond, i+1), fmt.Sprintf("%s / %s (%.2fx)", cpuPer(p.Paced), cpuPer(p.Throttled), p.Ratio()))
	}
	if len(t.Pairs) > 1 {
		kv(w, "throttled over unthrottled CPU, median of the rounds", fmt.Sprintf("%.2fx", t.medianRatio()))
	}
	kv(w, "store rows written per delivery: unlimited", fmt.Sprintf("%.2f saturated, %.2f paced", t.AloneWrites, t.PacedWrites))
	kv(w, "store rows written per delivery: throttled", fmt.Sprintf("%.2f (%+.2f)", t.ThrottledWrites, t.ThrottledWrites-t.PacedWrites))
	kv(w, "throttled: start timer late p50 / p90 / max", quantiles(t.ThrottledStarts.Timer))
	kv(w, "throttled: first task dispatch p50 / p90 / max", quantiles(t.ThrottledStarts.Dispatch))
	kv(w, "throttled deliveries by history events", histogram(t.ThrottledStarts.Lengths))
}

// medianRatio is the median of the rounds' throttled over unthrottled
// CPU per delivery (of an even count, the mean of the middle two).
func (t ThrottleResult) medianRatio() float64 {
	r := make([]float64, len(t.Pairs))
	for i, p := range t.Pairs {
		r[i] = p.Ratio()
	}
	sort.Float64s(r)
	if len(r) == 0 {
		return 0
	}
	if len(r)%2 == 0 {
		return (r[len(r)/2-1] + r[len(r)/2]) / 2
	}
	return r[len(r)/2]
}

// cpuBeside is the CPU of the unlimited endpoint's run alone (the mean of
// both) and of its run r beside other work (together with the limited
// endpoint, or beside the paced stream), and the share of r's CPU that
// other work took: on a machine the unlimited run saturates alone, it
// finishes later by about what that share takes from it.
func cpuBeside(t ThrottleResult, r LoadResult) string {
	alone := (t.Alone.Usage.CPU + t.AloneAgain.Usage.CPU) / 2
	beside := r.Usage.CPU
	if alone <= 0 || beside <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s / %.2f s (%.0f%%)", alone.Seconds(), beside.Seconds(), 100*float64(beside-alone)/float64(beside))
}
