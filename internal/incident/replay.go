package incident

import (
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Outcome is the replicates of a run that had the incident's Outcome, of
// those judged, with its 95% Wilson interval.
type Outcome struct {
	Run   string
	Fix   bool
	Share schema.Estimate
}

// Number is a number the source gives beside the replay's figure for it.
type Number struct {
	Given
	Replayed float64
}

// Report is a replay: the runs' results (Fleet or Graph, by the incident's
// kind, in Runs order), each run's outcome and the source's numbers beside
// the replay's.
type Report struct {
	Incident   Incident
	Replicates int
	Seed       uint64
	Fleet      []fleet.Result
	Graph      []fleet.GraphResult
	Outcomes   []Outcome
	Numbers    []Number
}

// Judge is the report of inc's runs' results, run with seed: fl for a fleet
// incident, gr for a workers one.
func Judge(inc Incident, seed uint64, fl []fleet.Result, gr []fleet.GraphResult) *Report {
	rep := &Report{Incident: inc, Seed: seed, Fleet: fl, Graph: gr}
	if len(fl) > 0 {
		rep.Replicates = len(fleetrun.Fleet().Replicates(fl[0]))
	} else if len(gr) > 0 {
		rep.Replicates = len(fleetrun.Fleet().GraphReplicates(gr[0]))
	}
	for i, run := range inc.Runs {
		k, n := 0, 0
		for r := range rep.Replicates {
			if judged, bad := rep.judge(i, r); judged {
				n++
				if bad {
					k++
				}
			}
		}
		share := estimate.Point(0, 0)
		if n > 0 {
			share = stats.Wilson(int64(k), int64(n))
		}
		rep.Outcomes = append(rep.Outcomes, Outcome{Run: run.Name, Fix: run.Fix, Share: share})
	}
	for _, g := range inc.Given {
		rep.Numbers = append(rep.Numbers, Number{Given: g, Replayed: g.figure(rep)})
	}
	return rep
}

// judge says whether replicate r of run i is judged (a fleet replicate too
// short is not), and whether it had the incident's outcome.
func (rep *Report) judge(i, r int) (judged, bad bool) {
	if rep.Fleet != nil {
		switch fleetrun.Fleet().Replicates(rep.Fleet[i])[r].Verdict {
		case fleetdata.Down:
			return true, true
		case fleetdata.Recovered:
			return true, false
		}
		return false, false
	}
	return true, rep.Incident.bad(rep, i, r)
}

// jobDuplicates is the side effects that the steps of replicate r of workers
// run i did again.
func jobDuplicates(rep *Report, i, r int) int64 {
	g := &rep.Graph[i].Graph
	var n int64
	for k, e := range fleetrun.Fleet().Edges(g) {
		if e.From >= 0 && g.Services[e.From].Name == fleetdata.WorkersService {
			n += fleetrun.Fleet().GraphReplicates(rep.Graph[i])[r].Edges[k].JobDuplicates
		}
	}
	return n
}

// duplicated is the outcome that some step's side effect was done twice.
func duplicated(rep *Report, i, r int) bool { return jobDuplicates(rep, i, r) > 0 }

// runIndex is the index of the run named name in rep's incident.
func (rep *Report) runIndex(name string) int {
	for i, r := range rep.Incident.Runs {
		if r.Name == name {
			return i
		}
	}
	panic("incident " + rep.Incident.Name + ": no run " + name)
}

// sinceTrigger is a fleet incident's minutes from its load spike's end to the run's end.
func sinceTrigger(rep *Report) float64 {
	return (rep.Incident.Duration - rep.Incident.Configs()[0].Load.To).Minutes()
}

// failedShare is the percentage of r's requests that failed among those
// arriving from to until tail before the run's end, over its replicates.
func failedShare(r fleet.Result, to, tail time.Duration) float64 {
	var starts, served int64
	for _, rep := range fleetrun.Fleet().Replicates(r) {
		from, end := int(to.Seconds()), len(rep.Series)-int(tail.Seconds())
		for _, s := range rep.Series[from:end] {
			starts += s.Starts
			served += s.Served
		}
	}
	return 100 * (1 - float64(served)/float64(starts))
}
