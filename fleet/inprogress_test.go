package fleet

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
)

// Issue 33 item 1: the rows' "in progress" is a time average over the
// run's duration, whatever the clients' timeouts. An M/M/10 worker fleet
// (8 jobs a second, the job's time a step to an infinite server with
// exponential 1 s service) has, by Little's law, lambda x W calls in
// progress at each service: at the dependency 8 x 1 s, at the workers 8 x
// (1 s + C(10, 8)/(10 - 8)) from Erlang C, 9.63. The rows must give both
// with every timeout from 30 s, which no call reaches (an exponential
// 1 s call lasts 30 s once in e^30, 10^13: one of the 115,200 here once in
// 10^8 runs), to 24 h; the old rows divided by the run's last event, a day
// past the end with 24 h timeouts (0.19 at the workers here). The band is
// 2.3 times the rows' 95% Student t half-widths, 5.44 standard errors (a
// false failure once in 1,000 a comparison by t(7), 1 in 500 for the
// family of 2); the warm-up from an empty start biases the mean by under
// 0.2%, a seventh of a standard error (1.5%). A timeout that never fires
// changes no draw, so the rows are the same bits at every timeout.
func TestRowsInProgressLittle(t *testing.T) {
	const (
		lambda = 8.0
		count  = 10
		reps   = 8
	)
	dep := Server{Kind: QueueServer, Workers: 100_000, QueueMax: 0, Service: Service{Dist: ExponentialService, Median: time.Second}}
	want := map[string]float64{
		fleetdata.WorkersService: lambda * (1 + erlangC(count, lambda)/(count-lambda)),
		"dep":                    lambda * 1,
	}
	var first []fleetdata.GraphRow
	for _, timeout := range []time.Duration{30 * time.Second, time.Hour, 24 * time.Hour} {
		w := oneStep(count, lambda, 1800*time.Second, dep)
		w.Queue.Timeout, w.Steps[0].Client.Timeout = timeout, timeout
		rows := runWorkers(t, w, Options{Replicates: reps, Seed: 11, Workers: 2}).rows()[1:] // the services' rows
		for _, r := range rows {
			e := r.InProgress
			half := (e.Hi - e.Lo) / 2
			if math.Abs(e.Value-want[r.Service]) > 2.3*half {
				t.Errorf("timeout %v, %s: in progress %.4f [%.4f, %.4f]; Little's law gives %.4f", timeout, r.Service, e.Value, e.Lo, e.Hi, want[r.Service])
			}
		}
		if first == nil {
			first = rows
			continue
		}
		for i, r := range rows {
			if got, was := fmt.Sprint(r.InProgress), fmt.Sprint(first[i].InProgress); got != was {
				t.Errorf("timeout %v, %s: in progress %s; with 30 s %s (want the same: no timeout fires)", timeout, r.Service, got, was)
			}
		}
	}
}

// Issue 33 item 3: the series' in_flight counts the jobs delivered to the
// workers and not yet answered at every second, those held while the
// workers are down included (the old series dropped them: 0 beside a
// backlog of 600). Every second, in_flight less the backlog is the jobs on
// a worker, from 0 to the workers' count; while the workers are down (a
// stall from 10 to 30 s, no job on a worker after the first 10 ms) the
// jobs are the Poisson arrivals since the outage began, whose time average
// over second t has mean lambda x (t + 0.5 - 10), held to 5 standard
// deviations of the mean of 5 replicates (sd at most sqrt(lambda x (t + 1
// - 10) / 5); a false failure about once in 10^6 a second, 10^5 for the
// 19 seconds).
func TestWorkersInFlightAcrossOutage(t *testing.T) {
	const (
		lambda = 20.0
		count  = 10
		reps   = 5
	)
	w := oneStep(count, lambda, 60*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Millisecond})
	w.Down = Outage{From: 10 * time.Second, To: 30 * time.Second, Mode: Stall}
	pts := runWorkers(t, w, Options{Replicates: reps, Seed: 4, Workers: 2}).workersSeries()
	for _, p := range pts {
		if on := p.InFlight - p.Backlog; on < -1e-9 || on > count+1e-9 {
			t.Errorf("t = %d: in flight %.4f, backlog %.4f: %.4f jobs on a worker; want 0 to %d", p.T, p.InFlight, p.Backlog, on, count)
		}
		if p.T >= 11 && p.T < 30 {
			want := lambda * (float64(p.T) + 0.5 - 10)
			if sd := math.Sqrt(lambda * (float64(p.T) + 1 - 10) / reps); math.Abs(p.InFlight-want) > 5*sd {
				t.Errorf("t = %d, the workers down: in flight %.4f; want %.4f +- %.4f", p.T, p.InFlight, want, 5*sd)
			}
		}
	}
}

// Issue 33 item 2: drain measures the draining, not the last excursion of
// a stable queue. 10 jobs a second on 20 workers, the job a step to an
// infinite server of exponential 1 s service that stalls from 60 to 180 s:
// the workers fill and a backlog B builds; once the dependency is back,
// every worker busy, the backlog falls by one at each completion (a
// Poisson process of rate 20, the service memoryless) and grows by one at
// each arrival (rate 10), so by Wald's identity it first empties after
// B/(mu W - lambda) = B/10 s on average: the fluid formula, exact for the
// mean of a walk that steps down by one. The mean drain of 30 replicates
// must be within 5% of the mean of their B/10, about 118 s (5.9 s). T -
// B/10 has variance B (lambda + mu W)/(mu W - lambda)^3, 35 s^2 for B =
// 1,180: 1.1 s for the mean of 30, and the second's resolution adds up to
// 1 s, so 5% is 4.5 standard deviations from it at worst: a false failure
// about once in 300,000 seeds. The old definition, the last second above
// the level, ran to the last excursion of the run's 900 s: 212 s.
func TestWorkersDrainFluid(t *testing.T) {
	const (
		lambda = 10.0
		count  = 20
		reps   = 30
	)
	dep := Server{Kind: QueueServer, Workers: 100_000, QueueMax: 0, Service: Service{Dist: ExponentialService, Median: time.Second}}
	w := oneStep(count, lambda, 900*time.Second, dep)
	w.Dependencies[0].Outage = Outage{From: 60 * time.Second, To: 180 * time.Second, Mode: Stall}
	res := runWorkers(t, w, Options{Replicates: reps, Seed: 5, Workers: 2})
	var fluid float64
	for _, rep := range res.replicates {
		fluid += float64(rep.Services[0].PeakBacklog) / (count*1 - lambda) / reps
	}
	drained, secs := res.drain(0)
	t.Logf("drain %.2f s [%.2f, %.2f]; B/(mu W - lambda) %.2f s", secs.Value, secs.Lo, secs.Hi, fluid)
	if drained.Count() != reps || math.Abs(secs.Value-fluid) > 0.05*fluid {
		t.Errorf("drained %d of %d, in %.2f s [%.2f, %.2f]; the fluid formula B/(mu W - lambda) gives %.2f s", drained.Count(), reps, secs.Value, secs.Lo, secs.Hi, fluid)
	}
}
