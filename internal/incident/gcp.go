package incident

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
)

// gcpHerd is the restart herd's requests a second (assumed), against a base of 40.
const gcpHerd = 90

// gcpConfig is the google-cloud-2025-06-12 replay's run with backoff b on the
// fleet's default collapse server: 40 requests a second, peak from 20 s to 25 s.
func gcpConfig(name string, b backoff.Schedule, peak float64) fleet.Config {
	c := fleet.DefaultConfig()
	c.Name, c.Duration = name, 10*time.Minute
	c.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: 40, Peak: peak, From: 20 * time.Second, To: 25 * time.Second}
	c.Client.Backoff = b
	return c
}

// gcpJitter is the fix: full jitter, base 20 s, no cap.
var gcpJitter = backoff.Schedule{Kind: backoff.FullJitter, Base: 20 * time.Second}

// gcpNone is the fleet's default backoff: none.
var gcpNone = fleet.DefaultConfig().Client.Backoff

// googleCloud2025 is Google Cloud's incident of 2025-06-12 (Service Control).
func googleCloud2025() Incident {
	return Incident{
		Name: "google-cloud-2025-06-12",
		Kind: Fleet,
		Source: Source{
			Title: "Incident Report: Google Cloud, Google Workspace and Google Security Operations products experienced increased 503 " +
				"errors in external API requests",
			Organisation: "Google Cloud",
			Date:         "2025-06-12",
			Link:         "https://status.cloud.google.com/incidents/ow5i3PPK96RduMcb1SsW",
			Quote: "Within some of our larger regions, such as us-central-1, as Service Control tasks restarted, it created a herd " +
				"effect on the underlying infrastructure it depends on (i.e. that Spanner table), overloading the infrastructure. " +
				"Service Control did not have the appropriate randomized exponential backoff implemented to avoid this.",
		},
		Story: "A policy change with blank fields, replicated globally within seconds, made Service Control (the binary that checks " +
			"every Google Cloud API request against its policies and quotas) follow a new code path without error handling and " +
			"crash in every region. Once the path was turned off, the tasks restarted; in the larger regions, such as us-central1, " +
			"the restarting tasks together overloaded the Spanner table they read from, because Service Control had no randomized " +
			"exponential backoff. Google throttled task creation and moved load to multi-regional databases; us-central1 took up to " +
			"about 2 h 40 min to resolve fully.",
		Outcome: "stayed collapsed after the restart herd ended (goodput not back within 10% of the offered load by the run's end)",
		FixText: "randomized_exponential_backoff: the missing randomized exponential backoff, full jitter (a wait uniform in " +
			"[0, 20 s x 2^(n-1)) before retry n, values assumed); everything else the same",
		Given: []Given{
			{What: "time to resolve fully in us-central1, task creation throttled by hand", Value: 160, Unit: "min",
				Replay: "no_randomized_backoff's time from the herd's end to the run's end", AtLeast: true,
				Note: "a run lasts at most an hour, and the source's recovery came from throttling by hand; that it did not " +
					"recover by itself is the outcome",
				figure: sinceTrigger},
		},
		Assumptions: []Assumption{
			{"the Spanner table", "Brooker's collapse server: 1 s + 10 ms a call in progress, no limit"},
			{"reads", "40 a second"},
			{"the restart herd", "90 a second for 5 s, from 20 s in"},
			{"a read's timeout and tries", "3 s, 3 tries in all"},
			{"backoff without the fix", "none: a retry at once"},
			{"network", "100 ms each way, exponential"},
			{"fix", "full jitter, base 20 s, doubling, no cap"},
			{"run", "10 minutes, 20 replicates"},
		},
		Runs: []Run{
			{Name: "no_randomized_backoff", Scenario: "examples/incidents/google-cloud-2025-06-12.yaml", Flags: "-duration 10m -replicates 20"},
			{Name: "randomized_exponential_backoff", Fix: true, Scenario: "examples/incidents/google-cloud-2025-06-12-fix.yaml", Flags: "-duration 10m -replicates 20"},
		},
		Duration: 10 * time.Minute,
		configs:  []fleet.Config{gcpConfig("no_randomized_backoff", gcpNone, gcpHerd), gcpConfig("randomized_exponential_backoff", gcpJitter, gcpHerd)},
	}
}
