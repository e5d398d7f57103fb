package incident

import (
	"time"

	"github.com/retrysim/retrysim/fleet"
)

// The facebook-2010-09-23 replay's values, every one assumed: fbRate queries
// a second, fbPeak from fbFrom to fbTo while every client sees the invalid
// value, fbTries queries a read makes while they fail.
const (
	fbRate  = 30.0
	fbPeak  = 200.0
	fbFrom  = 20 * time.Second
	fbTo    = 30 * time.Second
	fbTries = 10
)

// fbConfig is the facebook-2010-09-23 replay's run on the fleet's default
// collapse server: rate queries a second, peak from fbFrom to fbTo.
func fbConfig(name string, rate, peak float64, tries int) fleet.Config {
	c := fleet.DefaultConfig()
	c.Name, c.Duration = name, 10*time.Minute
	c.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: rate, Peak: peak, From: fbFrom, To: fbTo}
	c.Client.Attempts = tries
	return c
}

// facebook2010 is Facebook's outage of 2010-09-23.
func facebook2010() Incident {
	return Incident{
		Name: "facebook-2010-09-23",
		Kind: Fleet,
		Source: Source{
			Title:        "More Details on Today's Outage (Facebook Engineering's note, by Robert Johnson)",
			Organisation: "Facebook",
			Date:         "2010-09-23",
			Link:         "https://www.facebook.com/notes/facebook-engineering/more-details-on-todays-outage/431441338919",
			Quote: "To make matters worse, every time a client got an error attempting to query one of the databases it " +
				"interpreted it as an invalid value, and deleted the corresponding cache key. This meant that even after the " +
				"original problem had been fixed, the stream of queries continued. As long as the databases failed to service " +
				"some of the requests, they were causing even more requests to themselves. We had entered a feedback loop that " +
				"didn't allow the databases to recover.",
		},
		Story: "An automated system checked configuration values in Facebook's cache and replaced invalid ones with the value " +
			"from the persistent store. A change made the persistent copy of a value look invalid, so every client saw an " +
			"invalid value and tried to fix it with a query to a cluster of databases, which was soon overwhelmed by hundreds " +
			"of thousands of queries a second. Every client that got an error from the databases took it for an invalid value, " +
			"deleted the cache key and queried again, so the queries went on after the original problem was fixed: a feedback " +
			"loop that did not let the databases recover. The site was down or unreachable for about 2.5 hours: to stop the " +
			"loop Facebook stopped all traffic to the cluster, which meant turning the site off, let people back slowly once " +
			"the databases had recovered, and turned off the system that corrects configuration values. (Read through verbatim copies of the note: the Microsoft archive's blog post of it, clarkedailynews.com, " +
			"and siliconangle.com's quotation of the feedback loop; the note itself is no longer served.)",
		Outcome: "stayed collapsed after the invalid value was fixed (goodput not back within 10% of the offered load by the " +
			"run's end)",
		FixText: "no_correction: the system that corrects configuration values turned off, as Facebook did: an error is no " +
			"longer taken for an invalid value, so a read queries once; everything else the same. (Stopping all traffic and " +
			"letting people back slowly, which broke the loop that day, is a hand's action the replay does not model.)",
		Given: []Given{
			{What: "the site down or unreachable (about 2.5 h)", Value: 150, Unit: "min",
				Replay: "retry_on_error's time from the invalid value's fix to the run's end", AtLeast: true,
				Note: "a run lasts at most an hour, and the loop was broken by turning the site off; that it did not recover " +
					"by itself is the outcome",
				figure: sinceTrigger},
		},
		Assumptions: []Assumption{
			{"the database cluster", "Brooker's collapse server: 1 s + 10 ms a query in progress, no limit"},
			{"queries", "30 a second from clients whose cached value is missing"},
			{"the invalid value", "every client querying: 200 a second for 10 s, from 20 s in, then fixed"},
			{"queries a read makes while they fail", "10 in all, each at once (the note gives no bound)"},
			{"a query's timeout", "3 s"},
			{"network", "100 ms each way, exponential"},
			{"run", "10 minutes, 20 replicates"},
		},
		Runs: []Run{
			{Name: "retry_on_error", Scenario: "examples/incidents/facebook-2010-09-23.yaml", Flags: "-duration 10m -replicates 20"},
			{Name: "no_correction", Fix: true, Scenario: "examples/incidents/facebook-2010-09-23-fix.yaml", Flags: "-duration 10m -replicates 20"},
		},
		Duration: 10 * time.Minute,
		configs:  []fleet.Config{fbConfig("retry_on_error", fbRate, fbPeak, fbTries), fbConfig("no_correction", fbRate, fbPeak, 1)},
	}
}
