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

// ThrottleResult is the rate-limit phase: ThrottleRounds rounds of the
// same sequence on the same endpoints, so that the machine's drift from
// minute to minute falls on every measure alike and the rounds' medians
// can be read.
type ThrottleResult struct {
	N, PerSecond, Burst int
	Rounds              []ThrottleRound
}

// ThrottleRound is one round of the rate-limit phase: N events to an
// endpoint limited to PerSecond (burst Burst) beside an unlimited
// endpoint receiving N at the same time, the same flood beside N posted
// at PerSecond to a third, unlimited endpoint (the same deliveries at the
// same pace, without a limiter or a backlog to accept), the unlimited
// endpoint alone before and after, and the cost of a throttled delivery
// against an unthrottled one arriving at the same pace.
type ThrottleRound struct {
	// Alone and AloneAgain are the unlimited endpoint by itself, before
	// and after Together.
	Alone, AloneAgain LoadResult
	// Together is both at once: Unlimited's and Limited's deliveries.
	Unlimited, Limited LoadResult
	// Beside is the unlimited flood again beside BesidePaced, N posted
	// at the limit's rate to another unlimited endpoint.
	Beside, BesidePaced LoadResult
	// Of Limited's arrivals: the most in any 20 ms window, the fewest and
	// most in a whole second after the first, and the rate from the
	// burst's end to the last.
	MaxIn20ms, MinPerSecond, MaxPerSecond int
	LimitedRate                           float64
	// Over are the windows of 20 ms holding more than the burst's
	// arrivals: their first arrival's offset from the run's first.
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
	// Paced is the unlimited endpoint receiving N posted at PerSecond;
	// Throttled the limited one receiving N posted at once: the same
	// deliveries at the same pace, without and with the limiter.
	Paced, Throttled LoadResult
	// Writes are the store's rows written per delivery in each phase.
	AloneWrites, PacedWrites, ThrottledWrites float64
	// ThrottledStarts is how late Throttled's delayed starts began, and
	// its deliveries by the length of their history: 6 events is the
	// happy path, more is a wait on a workflow timer after the start.
	ThrottledStarts StartLag
}

const (
	throttledType   = "bench.throttled"
	unthrottledType = "bench.unthrottled"
	besideType      = "bench.paced-beside"
	// throttleSample is how many limited deliveries' attempts are read.
	throttleSample = 50
)

// throttleRig is the rate-limit phase's receivers and endpoints, one of
// each kind for every round.
type throttleRig struct {
	cfg                   Config
	h                     *hookdTarget
	free, limited, beside *receiver
	limitedID             string
}

// runThrottle runs the rate-limit phase on h.
func runThrottle(ctx context.Context, cfg Config, h *hookdTarget) (ThrottleResult, error) {
	res := ThrottleResult{N: cfg.ThrottleN, PerSecond: cfg.ThrottleRate, Burst: cfg.ThrottleBurst}
	rig := &throttleRig{cfg: cfg, h: h}
	defer rig.close()
	var err error
	for _, rc := range []**receiver{&rig.free, &rig.limited, &rig.beside} {
		if *rc, err = startReceiverProcess(); err != nil {
			return res, err
		}
	}
	if _, err := h.createEndpoint(ctx, rig.free.URL, unthrottledType, nil); err != nil {
		return res, err
	}
	if _, err := h.createEndpoint(ctx, rig.beside.URL, besideType, nil); err != nil {
		return res, err
	}
	if rig.limitedID, err = h.createLimitedEndpoint(ctx, rig.limited.URL, throttledType, cfg.ThrottleRate, cfg.ThrottleBurst); err != nil {
		return res, err
	}
	for round := range cfg.ThrottleRounds {
		r, err := rig.round(ctx, round)
		if err != nil {
			return res, err
		}
		res.Rounds = append(res.Rounds, r)
	}
	return res, nil
}

// close stops the rig's receivers.
func (rig *throttleRig) close() {
	for _, rc := range []*receiver{rig.free, rig.limited, rig.beside} {
		if rc != nil {
			rc.close()
		}
	}
}

// spec is the load of N events of eventType (to the endpoint
// subscribed to it) named name in round, posted at rate (0: at once).
func (rig *throttleRig) spec(round int, name string, rate float64, eventType string) loadSpec {
	if round > 0 {
		name = fmt.Sprintf("%s %d", name, round+1)
	}
	return loadSpec{name: "hookd throttle " + name, ids: eventIDs(eventType+" "+name, rig.cfg.ThrottleN), start: rig.h.apiStarter(eventType), rate: rate, clients: rig.cfg.Clients, batch: rig.cfg.Batch}
}

// round runs one round of the phase. The first round's throttled and
// paced phases write the profiles.
func (rig *throttleRig) round(ctx context.Context, round int) (ThrottleRound, error) {
	var res ThrottleRound
	var err error
	cfg, h := rig.cfg, rig.h
	if res.Alone, err = rig.measured(ctx, rig.free, rig.spec(round, "alone", 0, unthrottledType), &res.AloneWrites); err != nil {
		return res, err
	}
	limitedIDs, err := res.together(ctx, cfg, rig.free, rig.limited, rig.spec(round, "together", 0, unthrottledType), rig.spec(round, "together", 0, throttledType))
	if err != nil {
		return res, err
	}
	if res.MaxAttempts, err = h.maxAttempts(ctx, deliveryIDs(limitedIDs, rig.limitedID)); err != nil {
		return res, err
	}
	if res.TogetherStarts, err = startLags(ctx, h.dev.Client, deliveryIDs(limitedIDs, rig.limitedID)); err != nil {
		return res, err
	}
	if res.Beside, res.BesidePaced, err = both(ctx, cfg, rig.free, rig.beside, rig.spec(round, "beside", 0, unthrottledType), rig.spec(round, "paced beside", float64(cfg.ThrottleRate), besideType)); err != nil {
		return res, fmt.Errorf("throttle beside paced: %w", err)
	}
	if res.AloneAgain, err = rig.measured(ctx, rig.free, rig.spec(round, "alone again", 0, unthrottledType), nil); err != nil {
		return res, err
	}
	paced, throttled := rig.spec(round, "paced", float64(cfg.ThrottleRate), unthrottledType), rig.spec(round, "throttled", 0, throttledType)
	if round == 0 {
		paced.profile, throttled.profile = cfg.PacedProfile, cfg.ThrottleProfile
	}
	if res.Paced, err = rig.measured(ctx, rig.free, paced, &res.PacedWrites); err != nil {
		return res, err
	}
	if res.Throttled, err = rig.measured(ctx, rig.limited, throttled, &res.ThrottledWrites); err != nil {
		return res, err
	}
	res.ThrottledStarts, err = startLags(ctx, h.dev.Client, deliveryIDs(throttled.ids, rig.limitedID))
	return res, err
}

// measured runs s to rc once the machine settled and counts the store's
// rows written per delivery meanwhile in writes, if set.
func (rig *throttleRig) measured(ctx context.Context, rc *receiver, s loadSpec, writes *float64) (LoadResult, error) {
	settle(ctx)
	before, err := rig.h.dev.StoreWrites(ctx)
	if err != nil {
		return LoadResult{}, err
	}
	r, err := runLoad(ctx, rig.cfg, rc, s)
	after, werr := rig.h.dev.StoreWrites(ctx)
	if err == nil {
		err = werr
	}
	if writes != nil && r.N > 0 {
		*writes = float64(after-before) / float64(r.N)
	}
	return r, err
}

// together posts both specs at once, measures the limited receiver's
// arrivals and returns the limited events' IDs.
func (res *ThrottleRound) together(ctx context.Context, cfg Config, free, limited *receiver, fs, ls loadSpec) ([]string, error) {
	freeBefore, limitedBefore := free.requests(), limited.requests()
	var err error
	if res.Unlimited, res.Limited, err = both(ctx, cfg, free, limited, fs, ls); err != nil {
		return nil, fmt.Errorf("throttle together: %w", err)
	}
	res.LimitedRequests = limited.requests() - limitedBefore
	res.Duplicates = res.LimitedRequests - len(ls.ids) + free.requests() - freeBefore - len(fs.ids)
	_, at := limited.received(ls.ids)
	res.spacing(at, cfg.ThrottleBurst)
	return ls.ids, nil
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

// spacing computes the limited arrivals' window and per-second figures
// under a limit's burst.
func (res *ThrottleRound) spacing(at []time.Time, burst int) {
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
		if hi-lo+1 > burst && (len(res.Over) == 0 || res.Over[len(res.Over)-1] != at[lo].Sub(at[0])) {
			res.Over = append(res.Over, at[lo].Sub(at[0]))
		}
		if hi-lo+1 > burst && res.OverSpacing == nil {
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
	if n := len(at) - burst; n > 0 {
		res.LimitedRate = float64(n) / at[len(at)-1].Sub(at[burst-1]).Seconds()
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

// reportThrottle writes the rate-limit phase: its first round whole,
// and with more rounds, each round's headline figures and their medians.
func reportThrottle(w io.Writer, t ThrottleResult) {
	if len(t.Rounds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nrate limit: %d events to an endpoint limited to %d/s (burst %d) beside an unlimited endpoint receiving %d at the same time\n\n", t.N, t.PerSecond, t.Burst, t.N)
	fmt.Fprintf(w, "| %-44s | %-22s |\n| --- | --- |\n", "measure", "hookd")
	r := t.Rounds[0]
	kv(w, "limited: most arrivals in any 20 ms", fmt.Sprintf("%d (burst %d)", r.MaxIn20ms, t.Burst))
	if len(r.Over) > 0 {
		kv(w, "limited: windows over the burst, from the first", strings.Trim(fmt.Sprint(r.Over[:min(10, len(r.Over))]), "[]"))
		kv(w, "limited: the first such window's arrivals", strings.Trim(fmt.Sprint(r.OverSpacing), "[]"))
	}
	kv(w, "limited: arrivals per whole second", fmt.Sprintf("%d-%d (limit %d)", r.MinPerSecond, r.MaxPerSecond, t.PerSecond))
	kv(w, "limited: arrivals in seconds 1-15", strings.Trim(fmt.Sprint(r.PerSecondSeries[:min(15, len(r.PerSecondSeries))]), "[]"))
	kv(w, "limited: start timer late p50 / p90 / max", quantiles(r.TogetherStarts.Timer))
	kv(w, "limited: first task dispatch p50 / p90 / max", quantiles(r.TogetherStarts.Dispatch))
	kv(w, "limited deliveries by history events", histogram(r.TogetherStarts.Lengths))
	kv(w, "limited: rate after the burst", fmt.Sprintf("%.2f/s (%+.1f%%)", r.LimitedRate, 100*(r.LimitedRate/float64(t.PerSecond)-1)))
	kv(w, "limited: requests / most attempts (sampled)", fmt.Sprintf("%d for %d events / %d", r.LimitedRequests, t.N, r.MaxAttempts))
	kv(w, "duplicates (both receivers)", fmt.Sprint(r.Duplicates))
	kv(w, "unlimited: finish alone / together / alone", fmt.Sprintf("%s / %s / %s", finish(r.Alone), finish(r.Unlimited), finish(r.AloneAgain)))
	kv(w, "unlimited together vs mean alone", fmt.Sprintf("%+.1f%%", r.slower(r.Unlimited)))
	kv(w, "unlimited: CPU alone / together (the limited's share)", r.cpuBeside(r.Unlimited))
	kv(w, fmt.Sprintf("unlimited: finish beside %d at %d/s to an unlimited endpoint", t.N, t.PerSecond), fmt.Sprintf("%s (%+.1f%% vs mean alone)", finish(r.Beside), r.slower(r.Beside)))
	kv(w, "unlimited: CPU beside them (their share)", r.cpuBeside(r.Beside))
	kv(w, fmt.Sprintf("CPU ms per delivery at %d/s: unthrottled", t.PerSecond), cpuPer(r.Paced))
	kv(w, fmt.Sprintf("CPU ms per delivery at %d/s: throttled", t.PerSecond), fmt.Sprintf("%s (%.2fx)", cpuPer(r.Throttled), r.costRatio()))
	kv(w, "store rows written per delivery: unlimited", fmt.Sprintf("%.2f saturated, %.2f paced", r.AloneWrites, r.PacedWrites))
	kv(w, "store rows written per delivery: throttled", fmt.Sprintf("%.2f (%+.2f)", r.ThrottledWrites, r.ThrottledWrites-r.PacedWrites))
	kv(w, "throttled: start timer late p50 / p90 / max", quantiles(r.ThrottledStarts.Timer))
	kv(w, "throttled: first task dispatch p50 / p90 / max", quantiles(r.ThrottledStarts.Dispatch))
	kv(w, "throttled deliveries by history events", histogram(r.ThrottledStarts.Lengths))
	if len(t.Rounds) > 1 {
		reportThrottleRounds(w, t)
	}
}

// reportThrottleRounds writes each round's headline figures and their
// medians.
func reportThrottleRounds(w io.Writer, t ThrottleResult) {
	fmt.Fprintf(w, "\nrate limit, %d rounds\n\n", len(t.Rounds))
	fmt.Fprintln(w, "| round | limited: most in 20 ms | per whole second | rate after the burst | late past their slots | unlimited together vs alone (limited's CPU share) | beside the paced stream (its share) | throttled / unthrottled CPU |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	var together, beside, ratio []float64
	for i, r := range t.Rounds {
		together, beside, ratio = append(together, r.slower(r.Unlimited)), append(beside, r.slower(r.Beside)), append(ratio, r.costRatio())
		fmt.Fprintf(w, "| %d | %d | %d-%d | %.2f/s | %d | %+.1f%% (%s) | %+.1f%% (%s) | %.2fx |\n", i+1, r.MaxIn20ms, r.MinPerSecond, r.MaxPerSecond, r.LimitedRate,
			r.late(), r.slower(r.Unlimited), r.cpuShare(r.Unlimited), r.slower(r.Beside), r.cpuShare(r.Beside), r.costRatio())
	}
	fmt.Fprintf(w, "| median | | | | | %+.1f%% | %+.1f%% | %.2fx |\n", median(together), median(beside), median(ratio))
}

// finish is how long r took to deliver its events.
func finish(r LoadResult) time.Duration {
	if r.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(r.N) / r.Rate * float64(time.Second)).Round(time.Millisecond)
}

// slower is how much longer, in percent, the unlimited endpoint's run r
// took than its runs alone took on average.
func (r ThrottleRound) slower(run LoadResult) float64 {
	return 100 * (float64(finish(run))/(float64(finish(r.Alone)+finish(r.AloneAgain))/2) - 1)
}

// costRatio is the round's CPU per throttled delivery over the
// unthrottled one at the same pace.
func (r ThrottleRound) costRatio() float64 {
	return ratioOf(cpuPerDelivery(r.Throttled), cpuPerDelivery(r.Paced))
}

// late is how many of Together's limited deliveries reached their slot
// late and took another: a history longer than the 6-event happy path.
func (r ThrottleRound) late() int {
	n := 0
	for events, count := range r.TogetherStarts.Lengths {
		if events > 6 {
			n += count
		}
	}
	return n
}

// median is the median of xs (of an even count, the mean of the middle
// two); xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	if len(xs)%2 == 0 {
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return xs[len(xs)/2]
}

// cpuBeside is the CPU of the unlimited endpoint's run alone (the mean of
// both) and of its run beside other work (together with the limited
// endpoint, or beside the paced stream), and the share of that run's CPU
// the other work took: on a machine the unlimited run saturates alone, it
// finishes later by about what that share takes from it.
func (r ThrottleRound) cpuBeside(run LoadResult) string {
	if r.aloneCPU() <= 0 || run.Usage.CPU <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s / %.2f s (%s)", r.aloneCPU().Seconds(), run.Usage.CPU.Seconds(), r.cpuShare(run))
}

// cpuShare is the share of run's CPU that the work beside the unlimited
// endpoint took.
func (r ThrottleRound) cpuShare(run LoadResult) string {
	alone := r.aloneCPU()
	if alone <= 0 || run.Usage.CPU <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(run.Usage.CPU-alone)/float64(run.Usage.CPU))
}

// aloneCPU is the mean CPU of the unlimited endpoint's runs alone.
func (r ThrottleRound) aloneCPU() time.Duration {
	return (r.Alone.Usage.CPU + r.AloneAgain.Usage.CPU) / 2
}
