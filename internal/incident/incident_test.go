package incident

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/stats"
)

// Replay runs inc's runs with opt (Replicates 0 for DefaultReplicates),
// then judges each replicate's outcome.
func Replay(ctx context.Context, inc Incident, opt fleet.Options) (*Report, error) {
	if opt.Replicates == 0 {
		opt.Replicates = DefaultReplicates
	}
	var (
		fl  []fleet.Result
		gr  []fleet.GraphResult
		err error
	)
	switch inc.Kind {
	case Fleet:
		fl, err = fleet.Run(ctx, inc.Configs(), opt)
	case Workers:
		gr, err = fleet.RunGraph(ctx, inc.Graphs(), opt)
	default:
		err = fmt.Errorf("incident %s: unknown kind %q", inc.Name, inc.Kind)
	}
	if err != nil {
		return nil, err
	}
	return Judge(inc, opt.Seed, fl, gr), nil
}

// FacebookTipRate is the query rate (every try counted) past which
// Brooker's latency server (base + slope a query in progress) times every
// query out and keeps doing so: a query is answered late when it finds
// more than n* = (timeout - base - 2 net) / slope in progress, and queries
// arriving at rate q a second with every one late keep q (base + slope n)
// in progress, which is n* at q = n* / (base / 1 s + slope / 1 s x n*).
func FacebookTipRate(base, slope, timeout, net time.Duration) float64 {
	n := (timeout - base - 2*net).Seconds() / slope.Seconds()
	return n / (base.Seconds() + slope.Seconds()*n)
}

// SidekiqMaxCalm is the most workers at which no query outlasts the job's
// timeout however full the queue: a query finding w in progress, itself
// included, takes base + slope x w, under timeout while w is below
// (timeout - base) / slope.
func SidekiqMaxCalm(base, slope, timeout time.Duration) float64 {
	return (timeout - base).Seconds() / slope.Seconds()
}

// replay replays inc with the seed 1 and n replicates (0: its default).
func replay(t *testing.T, inc Incident, n int) *Report {
	t.Helper()
	rep, err := Replay(context.Background(), inc, fleet.Options{Replicates: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// galleryReplays are the gallery's replays as the command makes them (its
// default replicates, seed 1), one an incident, shared by the tests that
// read them.
var galleryReplays struct {
	sync.Mutex
	reps map[string]*Report
}

// galleryReplay is the incident name's replay with its default replicates
// and the seed 1, made once for all the tests that read it.
func galleryReplay(t *testing.T, name string) *Report {
	t.Helper()
	galleryReplays.Lock()
	defer galleryReplays.Unlock()
	if rep, ok := galleryReplays.reps[name]; ok {
		return rep
	}
	inc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	rep := replay(t, inc, 0)
	if galleryReplays.reps == nil {
		galleryReplays.reps = map[string]*Report{}
	}
	galleryReplays.reps[name] = rep
	return rep
}

// outcome is run name's outcome in rep.
func outcome(rep *Report, name string) Outcome { return rep.Outcomes[rep.runIndex(name)] }

// TestScenarioFilesRunToTheSameRows loads each run's scenario file as the
// fleet or workers command does and runs it beside the gallery's run: the
// same rows, replicate for replicate (3 replicates, seed 7).
func TestScenarioFilesRunToTheSameRows(t *testing.T) {
	opt := fleet.Options{Replicates: 3, Seed: 7}
	for _, inc := range Gallery() {
		for i, run := range inc.Runs {
			t.Run(inc.Name+"/"+run.Name, func(t *testing.T) {
				path := filepath.Join("..", "..", filepath.FromSlash(run.Scenario))
				switch inc.Kind {
				case Fleet:
					l, err := scenario.LoadFleet(path)
					if err != nil {
						t.Fatal(err)
					}
					want := inc.Configs()[i]
					c := fleet.DefaultConfig() // as retrysim fleet reads the file: its settings over the defaults,
					if err := l.Fleet.Apply(&c); err != nil {
						t.Fatal(err)
					}
					c.Name, c.Duration = want.Name, inc.Duration // its one run's name set as the gallery's, its -duration
					if run.Flags != fmt.Sprintf("-duration %s -replicates %d", minutes(inc.Duration), DefaultReplicates) {
						t.Errorf("flags %q do not give the gallery's duration %s and replicates %d", run.Flags, inc.Duration, DefaultReplicates)
					}
					got, err := fleet.Run(context.Background(), []fleet.Config{c, want}, opt)
					if err != nil {
						t.Fatal(err)
					}
					if a, b := fmt.Sprintf("%+v", fleetrun.Fleet().Summary(got[0])), fmt.Sprintf("%+v", fleetrun.Fleet().Summary(got[1])); a != b {
						t.Errorf("scenario file's row\n%s\nwant the gallery's\n%s", a, b)
					}
				case Workers:
					l, err := scenario.LoadGraph(path)
					if err != nil {
						t.Fatal(err)
					}
					want := inc.workers[i].Graph()
					got, err := fleet.RunGraph(context.Background(), []fleet.Graph{l.Graph.Graph, want}, opt)
					if err != nil {
						t.Fatal(err)
					}
					if a, b := fmt.Sprintf("%+v", fleetrun.Fleet().WorkersRows(got[0])), fmt.Sprintf("%+v", fleetrun.Fleet().WorkersRows(got[1])); a != b {
						t.Errorf("scenario file's row\n%s\nwant the gallery's\n%s", a, b)
					}
				}
			})
		}
	}
}

// minutes is a whole number of minutes as the scenario commands' flags take it.
func minutes(d time.Duration) string { return fmt.Sprintf("%dm", int(d.Minutes())) }

// TestReplayIsDeterministic writes each incident's json twice, on 1 worker
// and on 3: the same bytes.
func TestReplayIsDeterministic(t *testing.T) {
	for _, inc := range Gallery() {
		var outs [2]bytes.Buffer
		for k, w := range []int{1, 3} {
			rep, err := Replay(context.Background(), inc, fleet.Options{Replicates: 4, Seed: 3, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if err := Write(&outs[k], rep, "json"); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
			t.Errorf("%s: json on 1 worker and on 3 differ", inc.Name)
		}
	}
}

// TestSQSDuplicatesClosedFormByHand checks the closed form against a sum
// over arrivals on a fine grid, written from the rule (a job u seconds
// before the stall's end is received every v seconds while u remains, at
// most maxReceive times in all), and against the hand-worked 120 (70 + 40
// + 10 job-seconds charging again for a 100 s stall and 30 s).
func TestSQSDuplicatesClosedFormByHand(t *testing.T) {
	if got := SQSDuplicatesClosedForm(1, 100*time.Second, 30*time.Second, 5); got != 120 {
		t.Errorf("closed form(100 s, 30 s) = %g; want 120", got)
	}
	for _, c := range []struct {
		stall, vis time.Duration
		max        int
	}{{100 * time.Second, 30 * time.Second, 5}, {150 * time.Second, 30 * time.Second, 5}, {20 * time.Second, 30 * time.Second, 5},
		{300 * time.Second, 30 * time.Second, 5}, {95 * time.Second, 10 * time.Second, 3}} {
		const dt = 0.001
		var grid float64
		for u := dt / 2; u < c.stall.Seconds(); u += dt {
			receives := 1
			for next := c.vis.Seconds(); next < u && receives < c.max; next += c.vis.Seconds() {
				receives++
			}
			grid += float64(receives-1) * dt
		}
		if got := SQSDuplicatesClosedForm(2, c.stall, c.vis, c.max); math.Abs(got-2*grid) > 0.01 {
			t.Errorf("closed form(%v, %v, %d) = %g; the grid's sum %g", c.stall, c.vis, c.max, got, 2*grid)
		}
	}
}

// TestSQSDuplicatesMatchClosedForm holds no_key's mean duplicate charges
// over its 20 replicates within 12 of the closed form's 120 (the count's
// variance is 1 x (1 x 70 + 3 x 40 + 5 x 10) = 240 a replicate, so 12 is
// 3.5 standard deviations of the mean: a false failure about once in
// 2,000), and checks that the incident duplicates in every replicate and
// both fixes in none.
func TestSQSDuplicatesMatchClosedForm(t *testing.T) {
	rep := galleryReplay(t, "sqs-visibility-payment")
	n := rep.Numbers[1]
	if math.Abs(n.Replayed-n.Value) > n.Tolerance || n.Value != 120 {
		t.Errorf("no_key's duplicates = %g; want within %g of %g", n.Replayed, n.Tolerance, n.Value)
	}
	if o := outcome(rep, "no_key"); o.Share.Count() != 20 || o.Share.N != 20 || o.Share.Lo < 0.83 {
		t.Errorf("no_key duplicated in %d of %d replicates [%.3f, %.3f]; want 20 of 20, lower bound above 0.83", o.Share.Count(), o.Share.N, o.Share.Lo, o.Share.Hi)
	}
	for _, fix := range []string{"lease", "heartbeat"} {
		if o := outcome(rep, fix); o.Share.Count() != 0 || o.Share.N != 20 || o.Share.Hi > 0.17 {
			t.Errorf("%s duplicated in %d of %d replicates; want 0 of 20, upper bound under 0.17", fix, o.Share.Count(), o.Share.N)
		}
	}
}

// TestSQSStallSweep sweeps the assumed stall over 20 s to 150 s: under the
// 30 s visibility timeout no charge is made twice (exactly 0); above it,
// no_key's mean duplicates follow the closed form within 4 standard
// deviations of the mean (a false failure about once in 16,000 a point),
// and the heartbeat fix stays at 0 throughout. The outcome flips where the
// stall passes the visibility timeout.
func TestSQSStallSweep(t *testing.T) {
	inc, _ := Lookup("sqs-visibility-payment")
	const reps = 10
	for _, stall := range []time.Duration{20 * time.Second, 60 * time.Second, 150 * time.Second} {
		inc.workers = sqsVisibility().workers
		for i := range inc.workers {
			o := &inc.workers[i].Dependencies[0].Outage
			o.To = o.From + stall
		}
		rep := replay(t, inc, reps)
		var sum int64
		for r := range reps {
			sum += jobDuplicates(rep, 0, r)
		}
		mean := float64(sum) / reps
		want := SQSDuplicatesClosedForm(sqsArrivals, stall, 30*time.Second, 5)
		var variance float64 // sum over k of (2k - 1)(s - k v): floor(u/v)^2 integrated
		for k := 1; k < 5 && float64(k)*30 < stall.Seconds(); k++ {
			variance += float64(2*k-1) * (stall.Seconds() - float64(k)*30)
		}
		tol := 4 * math.Sqrt(sqsArrivals*variance/reps)
		if math.Abs(mean-want) > tol || (want == 0 && sum != 0) {
			t.Errorf("stall %v: no_key's duplicates %g a replicate; closed form %g, tolerance %g", stall, mean, want, tol)
		}
		if o := outcome(rep, "heartbeat"); o.Share.Count() != 0 {
			t.Errorf("stall %v: heartbeat duplicated in %d of %d replicates", stall, o.Share.Count(), o.Share.N)
		}
	}
}

// window is the mean, over the run's series seconds [from, to), of the
// successes a second.
func window(r fleet.Result, from, to int) float64 {
	var sum float64
	pts := fleetrun.Fleet().Series(r)
	for _, p := range pts[from:to] {
		sum += p.Successes
	}
	return sum / float64(to-from)
}

// TestDynamoDBMechanism holds the replay to what the source says: the
// blip takes goodput down (under half the 60 requests a second from 5 s
// after the blip to a minute after it), it stays collapsed to the run's end
// in 20 of 20 replicates (Wilson [0.84, 1]: the source says it did not
// recover by itself), and with 30 s allowed it recovers in 20 of 20. The
// source's durations are held one-sided (still collapsed 9 min 35 s after
// the blip, at the run's end), and its 55% is set beside the replay's
// nearest figure, the membership requests arriving after the blip that
// failed (every one: the queue's 10 s wait outlasts the 1 s allowed), said
// plainly not comparable.
func TestDynamoDBMechanism(t *testing.T) {
	rep := galleryReplay(t, "dynamodb-2015-09-20")
	if g := window(rep.Fleet[0], 30, 85); g > 30 {
		t.Errorf("timeout_1s: %g successes a second after the blip; want under 30", g)
	}
	if g := window(rep.Fleet[0], 0, 15); g < 54 {
		t.Errorf("timeout_1s: %g successes a second before the blip; want about 60", g)
	}
	if o := outcome(rep, "timeout_1s"); o.Share.Count() != 20 || o.Share.Lo < 0.83 {
		t.Errorf("timeout_1s stayed collapsed in %d of %d [%.3f, %.3f]; want 20 of 20", o.Share.Count(), o.Share.N, o.Share.Lo, o.Share.Hi)
	}
	if o := outcome(rep, "timeout_30s"); o.Share.Count() != 0 || o.Share.Hi > 0.17 {
		t.Errorf("timeout_30s stayed collapsed in %d of %d; want 0 of 20", o.Share.Count(), o.Share.N)
	}
	heldOneSided(t, rep, (600-25)/60.0)
	var starts, served int64 // the arrivals from the blip's end (25 s) to 590 s, and those that succeeded
	for _, r := range fleetrun.Fleet().Replicates(rep.Fleet[0]) {
		for _, s := range r.Series[25:590] {
			starts, served = starts+s.Starts, served+s.Served
		}
	}
	var table bytes.Buffer
	if err := Write(&table, rep, "markdown"); err != nil {
		t.Fatal(err)
	}
	if n := rep.Numbers[0]; math.Abs(n.Replayed-100*float64(starts-served)/float64(starts)) > 1e-9 || served != 0 ||
		!strings.Contains(table.String(), "| 100 % | not comparable: the source's rate is of customers' data requests") {
		t.Errorf("failed during the collapse: %g%% of %d arrivals (%d served); want none served, said not comparable:\n%s", n.Replayed, starts, served, table.String())
	}
}

// heldOneSided checks rep's one-sided numbers, a duration longer than a run:
// the replay's figure is the minutes from the trigger's end to the run's end
// (sinceEnd, worked by hand from the incident's values), short of the
// source's, the incident's run still collapsed there in every replicate,
// and the output says so as one-sided beside the source's number.
func heldOneSided(t *testing.T, rep *Report, sinceEnd float64) {
	t.Helper()
	var table bytes.Buffer
	if err := Write(&table, rep, "markdown"); err != nil {
		t.Fatal(err)
	}
	o := rep.Outcomes[0]
	seen := 0
	for _, n := range rep.Numbers {
		if !n.AtLeast {
			continue
		}
		seen++
		if math.Abs(n.Replayed-sinceEnd) > 1e-9 || n.Replayed >= n.Value || o.Share.Count() != o.Share.N || o.Share.N != 20 {
			t.Errorf("%s: replay %g min, collapsed at the end in %d of %d; want %g min, under the source's %g, in 20 of 20",
				n.What, n.Replayed, o.Share.Count(), o.Share.N, sinceEnd, n.Value)
		}
		want := fmt.Sprintf("| %s %s | %s | %s min | one-sided: still collapsed at the run's end, %s min after the trigger, in 20 of 20 "+
			"replicates, so the replay's collapse lasts at least the run: consistent with a duration of at least %s min, as the "+
			"source's %s %s is;", number(n.Value), n.Unit, n.Replay, number(sinceEnd), number(sinceEnd), number(sinceEnd), number(n.Value), n.Unit)
		if !strings.Contains(table.String(), want) {
			t.Errorf("%s: the output does not hold it one-sided beside the source's number; want\n%s", n.What, want)
		}
	}
	if seen == 0 {
		t.Errorf("%s: no duration held one-sided", rep.Incident.Name)
	}
}

// collapsedIn is how many of reps replicates of c stayed collapsed.
func collapsedIn(t *testing.T, c fleet.Config, reps int) int {
	t.Helper()
	res, err := fleet.Run(context.Background(), []fleet.Config{c}, fleet.Options{Replicates: reps, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := fleetrun.Fleet().Summary(res[0]).RecoveredShare
	return int(s.N - s.Count())
}

// TestDynamoDBSweeps sweeps two assumed values and says where the outcome
// flips, each against a closed form. The timeout: the blip leaves a
// backlog of (300 - 100) x 5 = 1,000 requests, a wait of 10 s at 100 a
// second, so a timeout of 5 s or less times every request out and the run
// stays collapsed (10 of 10 replicates), one of 15 s or more does not and it
// recovers (0 of 10 collapsed). The load, at a 1 s timeout: once every try
// times out, 3 tries bring 3 x rate to a server of 100 a second, so 25 a
// second (75) drains and recovers, 45 (135) never does.
func TestDynamoDBSweeps(t *testing.T) {
	const reps = 10
	for _, c := range []struct {
		timeout   time.Duration
		rate      float64
		collapsed int
	}{
		{2 * time.Second, 60, reps}, {5 * time.Second, 60, reps}, {15 * time.Second, 60, 0}, {30 * time.Second, 60, 0},
		{time.Second, 25, 0}, {time.Second, 45, reps},
	} {
		cfg := dynamoConfig("sweep", c.timeout)
		cfg.Load.Rate = c.rate
		if got := collapsedIn(t, cfg, reps); got != c.collapsed {
			t.Errorf("timeout %v, rate %g: collapsed in %d of %d; want %d", c.timeout, c.rate, got, reps, c.collapsed)
		}
	}
}

// TestGoogleCloudMechanism holds the replay to the report: the herd takes
// goodput down (under half the 40 reads a second in the minute after it),
// without randomized backoff it stays collapsed in 20 of 20 replicates
// (Wilson [0.84, 1]; the report says it took throttling by hand), and with
// it at most 2 of 20 stay collapsed (the run's 1: Wilson upper bound 0.24).
func TestGoogleCloudMechanism(t *testing.T) {
	rep := galleryReplay(t, "google-cloud-2025-06-12")
	if g := window(rep.Fleet[0], 30, 85); g > 20 {
		t.Errorf("no_randomized_backoff: %g successes a second after the herd; want under 20", g)
	}
	if o := outcome(rep, "no_randomized_backoff"); o.Share.Count() != 20 || o.Share.Lo < 0.83 {
		t.Errorf("no_randomized_backoff stayed collapsed in %d of %d; want 20 of 20", o.Share.Count(), o.Share.N)
	}
	if o := outcome(rep, "randomized_exponential_backoff"); o.Share.Count() > 2 {
		t.Errorf("randomized_exponential_backoff stayed collapsed in %d of %d; want at most 2", o.Share.Count(), o.Share.N)
	}
	heldOneSided(t, rep, (600-25)/60.0)
}

// TestGoogleCloudHerdSweep sweeps the assumed herd (90 a second) from 60 to
// 120 and says where each run flips: without backoff the fleet recovers
// from a herd of 60 (at most 1 of 20 collapsed) and not from 80 or more (at
// least 17 of 20); with the fix it recovers up to 90 (at most 2 of 20) and
// not from 120 (at least 18 of 20): the fix moves the flip from between 60
// and 80 to between 90 and 120, and the gallery's 90 lies between.
func TestGoogleCloudHerdSweep(t *testing.T) {
	const reps = 20
	for _, c := range []struct {
		name   string
		peak   float64
		jitter bool
		lo, hi int
	}{
		{"none", 60, false, 0, 1}, {"none", 80, false, 17, reps}, {"none", 120, false, 20, reps},
		{"jitter", 60, true, 0, 0}, {"jitter", 90, true, 0, 2}, {"jitter", 120, true, 18, reps},
	} {
		b := gcpNone
		if c.jitter {
			b = gcpJitter
		}
		if got := collapsedIn(t, gcpConfig(c.name, b, c.peak), reps); got < c.lo || got > c.hi {
			t.Errorf("%s, herd %g: collapsed in %d of %d; want %d to %d", c.name, c.peak, got, reps, c.lo, c.hi)
		}
	}
}

// TestOutcomesAreWilson checks each outcome's interval against
// stats.Wilson of its counts and the run's own count of replicates with
// the outcome (over the replay's 20 replicates).
func TestOutcomesAreWilson(t *testing.T) {
	rep := galleryReplay(t, "google-cloud-2025-06-12")
	for i, o := range rep.Outcomes {
		var down int64
		for _, r := range fleetrun.Fleet().Replicates(rep.Fleet[i]) {
			if r.Verdict == fleetdata.Down {
				down++
			}
		}
		if w := stats.Wilson(down, DefaultReplicates); o.Share != w {
			t.Errorf("%s: outcome %+v; want Wilson(%d, %d) = %+v", o.Run, o.Share, down, DefaultReplicates, w)
		}
	}
}

// TestAWSMechanism holds the aws-us-east-1-2025-10-20 replay to the
// report: before the stall the lease work keeps up (within 10% of its 30
// jobs a second completed in the minute before it); after it, unthrottled
// completes none from 3 minutes in to the run's end and stays collapsed in
// 20 of 20 replicates (Wilson [0.84, 1]: the report says it made no
// progress until throttled by hand), its calls to the droplets within 1 a
// second of the closed form's 66.67 (every call finds 200 in progress and
// takes 3 s, past its 2 s lease); throttled to 80 workers it drains in 20
// of 20, its mean drain within 5 s of the closed form's 124.6 s.
func TestAWSMechanism(t *testing.T) {
	rep := galleryReplay(t, "aws-us-east-1-2025-10-20")
	var before, after int64
	for _, r := range fleetrun.Fleet().GraphReplicates(rep.Graph[0]) {
		for s, p := range r.Services[0].Series[:600] {
			switch {
			case s < 60:
				before += p.Successes
			case s >= 180:
				after += p.Successes
			}
		}
	}
	if b := float64(before) / 20 / 60; math.Abs(b-awsRate) > 3 {
		t.Errorf("unthrottled: %g jobs a second completed before the stall; want within 3 of 30", b)
	}
	if after != 0 {
		t.Errorf("unthrottled: %d jobs completed from 3 minutes in; want 0", after)
	}
	if o := outcome(rep, "unthrottled"); o.Share.Count() != 20 || o.Share.N != 20 || o.Share.Lo < 0.83 {
		t.Errorf("unthrottled stayed collapsed in %d of %d; want 20 of 20", o.Share.Count(), o.Share.N)
	}
	if o := outcome(rep, "throttled"); o.Share.Count() != 0 || o.Share.N != 20 || o.Share.Hi > 0.17 {
		t.Errorf("throttled stayed collapsed in %d of %d; want 0 of 20", o.Share.Count(), o.Share.N)
	}
	if want := 200 / 3.0; math.Abs(AWSCollapsedCalls(200, time.Second, 10*time.Millisecond)-want) > 1e-9 {
		t.Errorf("closed form of the calls = %g; want 200 / 3 s", AWSCollapsedCalls(200, time.Second, 10*time.Millisecond))
	}
	if want := 1800 / (80/1.8 - 30); math.Abs(AWSDrainClosedForm(30, time.Minute, 80, time.Second, 10*time.Millisecond)-want) > 1e-9 {
		t.Errorf("closed form of the drain = %g; want %g", AWSDrainClosedForm(30, time.Minute, 80, time.Second, 10*time.Millisecond), want)
	}
	for _, n := range rep.Numbers[1:] {
		if math.Abs(n.Replayed-n.Value) > n.Tolerance {
			t.Errorf("%s: replay %g; want within %g of %g", n.What, n.Replayed, n.Tolerance, n.Value)
		}
	}
	heldOneSided(t, rep, (600-120)/60.0)
}

// TestAWSDeliveriesExplained accounts for unthrottled's deliveries, which
// come to more than 200 workers / 2 s a second of the run's 10 minutes:
// every job that did not complete was delivered 5 times, its lease running
// out on each (deliveries = completed + 5 x dead, exactly, in every
// replicate), and the replicate goes on past its 10 minutes of arrivals
// until the last queued job has had its 5 deliveries; over that whole time,
// from the stall's end to the last delivery (the replicate's last event,
// its step's stale 5-minute timeout, less those 5 minutes), the deliveries
// come at the closed form's 66.67 a second (within 1), in each of the
// replay's 20 replicates.
func TestAWSDeliveriesExplained(t *testing.T) {
	rep := galleryReplay(t, "aws-us-east-1-2025-10-20")
	for k, r := range fleetrun.Fleet().GraphReplicates(rep.Graph[0]) {
		e := r.Edges[0]
		calls := r.Services[droplets].Calls
		if calls != e.Succeeded+awsTries*e.Failed {
			t.Errorf("replicate %d: %d deliveries; want completed %d + 5 x dead %d", k, calls, e.Succeeded, e.Failed)
		}
		var early int64
		for _, c := range r.Services[droplets].CallSeries[:120] {
			early += c
		}
		last := r.End - 300
		if rate := float64(calls-early) / (last - 120); math.Abs(rate-200/3.0) > 1 {
			t.Errorf("replicate %d: %g deliveries a second from the stall's end to the last delivery at %.0f s; want 66.67", k, rate, last)
		}
		if last < 1000 {
			t.Errorf("replicate %d: last delivery at %.0f s; want well past the run's 600 s", k, last)
		}
	}
}

// TestAWSSweeps sweeps two assumed values and says where the outcome flips,
// each at the closed form's point: a call finding every worker busy takes
// 1 s + 10 ms x workers, past the 2 s lease above 100 workers, so 60 and 90
// workers drain (0 of 10 collapsed) and 110 and 300 do not (10 of 10); and
// with 200 workers (3 s a call) a lease of 2.5 s collapses, one of 3.5 s
// does not.
func TestAWSSweeps(t *testing.T) {
	const reps = 10
	for _, c := range []struct {
		workers   int
		lease     time.Duration
		collapsed int
	}{
		{60, awsLease, 0}, {90, awsLease, 0}, {110, awsLease, reps}, {300, awsLease, reps},
		{200, 2500 * time.Millisecond, reps}, {200, 3500 * time.Millisecond, 0},
	} {
		inc := awsUSEast2025()
		inc.workers = []fleet.Workers{awsFleet("sweep", c.workers, c.lease)}
		inc.Runs = inc.Runs[:1]
		inc.Given = nil
		rep := replay(t, inc, reps)
		if got := rep.Outcomes[0].Share.Count(); got != int64(c.collapsed) {
			t.Errorf("%d workers, lease %v: collapsed in %d of %d; want %d", c.workers, c.lease, got, reps, c.collapsed)
		}
	}
}

// TestSidekiqHerdMechanism holds the sidekiq-480-retry-herd replay to the
// issue: the herd's queries outlast their timeout in every run (more
// queries than jobs), and without a splay the jobs that failed together
// fail together again until some use up their 6 tries, in 20 of 20
// replicates (Wilson [0.84, 1]; more than 100 dead a replicate on
// average), while with the splay, and with Sidekiq's schedule of today, no
// job dies in 20 of 20 (Wilson [0, 0.16]).
func TestSidekiqHerdMechanism(t *testing.T) {
	inc, _ := Lookup("sidekiq-480-retry-herd")
	rep := galleryReplay(t, inc.Name)
	for i, run := range inc.Runs {
		var calls, jobs, dead int64
		for _, r := range fleetrun.Fleet().GraphReplicates(rep.Graph[i]) {
			calls += r.Services[1].Calls
			jobs += r.Edges[0].Requests
			dead += r.Edges[0].Failed
		}
		if calls <= jobs {
			t.Errorf("%s: %d queries for %d jobs; want the herd to time some out", run.Name, calls, jobs)
		}
		o := rep.Outcomes[i]
		switch {
		case !run.Fix && (o.Share.Count() != 20 || o.Share.Lo < 0.83 || dead < 100*20):
			t.Errorf("%s: dead jobs in %d of %d replicates, %d in all; want 20 of 20, over 100 a replicate", run.Name, o.Share.Count(), o.Share.N, dead)
		case run.Fix && (o.Share.Count() != 0 || o.Share.N != 20 || o.Share.Hi > 0.17):
			t.Errorf("%s: dead jobs in %d of %d replicates; want 0 of 20", run.Name, o.Share.Count(), o.Share.N)
		}
	}
}

// TestSidekiqSweeps sweeps two assumed values and says where the outcome
// flips. The workers, against a closed form: a query finding w in progress
// takes 0.5 s + 40 ms x w, under the 3 s timeout for w under 62.5, so at
// 50 and 60 workers however full the queue no query times out and no job
// is retried (queries = jobs, exactly), with or without a splay. The herd,
// at 100 workers: of 150 or 200 jobs a second for 2 s the unsplayed retries
// still clear (0 of 10 replicates with a dead job); of 300 or 600 they do
// not (10 of 10), while with the splay no job dies even of 600 a second
// (0 of 10): without it the flip lies between a herd of 400 jobs and one of
// 600, with it past 1,200.
func TestSidekiqSweeps(t *testing.T) {
	if got := SidekiqMaxCalm(500*time.Millisecond, 40*time.Millisecond, 3*time.Second); math.Abs(got-62.5) > 1e-9 {
		t.Errorf("SidekiqMaxCalm = %g; want 62.5", got)
	}
	const reps = 10
	for _, c := range []struct {
		workers   int
		herd      float64
		splay     bool
		dead      int64
		noRetries bool
	}{
		{50, skHerd, false, 0, true}, {60, skHerd, false, 0, true}, {60, skHerd, true, 0, true},
		{100, 150, false, 0, false}, {100, 200, false, 0, false},
		{100, 300, false, reps, false}, {100, 600, false, reps, false}, {100, 600, true, 0, false},
	} {
		b := skNoSplay
		if c.splay {
			b = skSplay
		}
		inc := sidekiq480()
		inc.workers = []fleet.Workers{skFleet("sweep", b, c.workers, c.herd)}
		inc.Runs = inc.Runs[:1]
		rep := replay(t, inc, reps)
		var calls, jobs int64
		for _, r := range fleetrun.Fleet().GraphReplicates(rep.Graph[0]) {
			calls += r.Services[1].Calls
			jobs += r.Edges[0].Requests
		}
		if got := rep.Outcomes[0].Share.Count(); got != c.dead || (calls == jobs) != c.noRetries {
			t.Errorf("%d workers, herd %g, splay %v: dead jobs in %d of %d, %d queries for %d jobs; want %d, no retries %v",
				c.workers, c.herd, c.splay, got, reps, calls, jobs, c.dead, c.noRetries)
		}
	}
}

// TestFacebookMechanism holds the facebook-2010-09-23 replay to the note:
// the invalid value takes goodput down (under a third of the 30 queries a
// second from 5 s after it was fixed to a minute later), a read retrying on
// every error keeps the cluster collapsed to the run's end in 20 of 20
// replicates (Wilson [0.84, 1]: the note says the loop did not let the
// databases recover), and with the correcting system off (one query a
// read) it recovers in 20 of 20.
func TestFacebookMechanism(t *testing.T) {
	rep := galleryReplay(t, "facebook-2010-09-23")
	if g := window(rep.Fleet[0], 35, 90); g > 10 {
		t.Errorf("retry_on_error: %g successes a second after the fix; want under 10", g)
	}
	if o := outcome(rep, "retry_on_error"); o.Share.Count() != 20 || o.Share.Lo < 0.83 {
		t.Errorf("retry_on_error stayed collapsed in %d of %d; want 20 of 20", o.Share.Count(), o.Share.N)
	}
	if o := outcome(rep, "no_correction"); o.Share.Count() != 0 || o.Share.N != 20 || o.Share.Hi > 0.17 {
		t.Errorf("no_correction stayed collapsed in %d of %d; want 0 of 20", o.Share.Count(), o.Share.N)
	}
	heldOneSided(t, rep, (600-30)/60.0)
}

// TestFacebookSweeps says where the loop holds, against the closed form:
// a query is late when it finds more than (3 s - 1 s - 0.2 s) / 10 ms = 180
// in progress, and queries at q a second with every one late keep
// q (1 s + 10 ms x n) in progress, 180 at q = 64.3, so the collapse holds
// when tries x rate is above 64.3 and not when it is below. Swept (10
// replicates each): 15 a second with 3 tries (45) and 50 with 1 (50)
// recover in 10 of 10; 30 with 3 (90) and 20 with 10 (200) stay collapsed in
// 10 of 10. The invalid value's surge must itself pass 64.3 to tip it: 60 a
// second for 10 s never does (0 of 10), 100 does (10 of 10).
func TestFacebookSweeps(t *testing.T) {
	if got := FacebookTipRate(time.Second, 10*time.Millisecond, 3*time.Second, 100*time.Millisecond); math.Abs(got-180/2.8) > 1e-9 {
		t.Errorf("FacebookTipRate = %g; want 180 / 2.8", got)
	}
	const reps = 10
	for _, c := range []struct {
		rate, peak float64
		tries      int
		collapsed  int
	}{
		{15, fbPeak, 3, 0}, {50, fbPeak, 1, 0}, {30, fbPeak, 3, reps}, {20, fbPeak, 10, reps},
		{fbRate, 60, fbTries, 0}, {fbRate, 100, fbTries, reps},
	} {
		if got := collapsedIn(t, fbConfig("sweep", c.rate, c.peak, c.tries), reps); got != c.collapsed {
			t.Errorf("rate %g, surge %g, %d tries: collapsed in %d of %d; want %d", c.rate, c.peak, c.tries, got, reps, c.collapsed)
		}
	}
}

// TestNoNumbersIsAnEmptyList writes sidekiq-480-retry-herd, whose source
// gives no number: json's numbers are an empty list, not null, and the
// table format says the source gives none.
func TestNoNumbersIsAnEmptyList(t *testing.T) {
	rep := galleryReplay(t, "sidekiq-480-retry-herd")
	var js, table bytes.Buffer
	if err := Write(&js, rep, "json"); err != nil {
		t.Fatal(err)
	}
	if err := Write(&table, rep, "table"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js.Bytes(), []byte(`"numbers": []`)) {
		t.Errorf("json has no empty numbers list:\n%.600s", js.String())
	}
	if !bytes.Contains(table.Bytes(), []byte("The source gives no number to set beside the replay's")) {
		t.Errorf("table does not say the source gives no number:\n%.2000s", table.String())
	}
}

// TestNoSentenceRestsOnTheIssue: every sentence about what happened traces
// to the source the incident cites, so none rests on the gallery's own
// issue (aws-us-east-1-2025-10-20 said the collapse was "broken by
// throttling incoming work and restarting DWFM hosts" as issue 39
// summarised AWS's report, the passage not in what was read).
func TestNoSentenceRestsOnTheIssue(t *testing.T) {
	for _, inc := range Gallery() {
		texts := []string{inc.Story, inc.FixText, inc.Outcome, inc.Quote}
		for _, g := range inc.Given {
			texts = append(texts, g.What, g.Note)
		}
		for _, a := range inc.Assumptions {
			texts = append(texts, a.Value)
		}
		for _, text := range texts {
			if strings.Contains(text, "issue 39") || strings.Contains(text, "DWFM hosts") {
				t.Errorf("%s: %q rests on issue 39, not on the source it cites", inc.Name, text)
			}
		}
	}
}

// TestTuneNoteSaysWhatExists: a replay says what is true of tune, in every
// format that carries its note: tune fleet|workers searches the incident's
// scenario files, and docs/incidents.md shows what it finds; it said tune
// for those kinds "comes next" after it was built.
func TestTuneNoteSaysWhatExists(t *testing.T) {
	inc, _ := Lookup("sqs-visibility-payment")
	rep := replay(t, inc, 1)
	for _, format := range []string{"markdown", "json"} {
		var b bytes.Buffer
		if err := Write(&b, rep, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"is in its section of docs/incidents.md, beside the fix", "retrysim tune fleet|workers -scenario FILE"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s does not say %q:\n%.3000s", format, want, out)
			}
		}
		for _, stale := range []string{"not built", "comes next", "job model only"} {
			if strings.Contains(out, stale) {
				t.Errorf("%s says %q of tune", format, stale)
			}
		}
	}
}
