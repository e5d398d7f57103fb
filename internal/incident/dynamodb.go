package incident

import (
	"time"

	"github.com/retrysim/retrysim/fleet"
)

// dynamoConfig is the dynamodb-2015-09-20 replay's run with a retrieval
// timeout of timeout: storage servers asking a metadata service (10 workers)
// for their membership, 60 a second and 300 during a 5 s blip.
func dynamoConfig(name string, timeout time.Duration) fleet.Config {
	c := fleet.DefaultConfig()
	c.Name, c.Duration, c.Net = name, 10*time.Minute, 10*time.Millisecond
	c.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: 60, Peak: 300, From: 20 * time.Second, To: 25 * time.Second}
	c.Server.Kind, c.Server.Workers, c.Server.QueueMax = fleet.QueueServer, 10, 100_000
	c.Server.Service.Dist, c.Server.Service.Median = fleet.ExponentialService, 100*time.Millisecond
	c.Client.Timeout, c.Client.Attempts = timeout, 3
	return c
}

// dynamoDB2015 is AWS's DynamoDB event of 2015-09-20 in us-east-1.
func dynamoDB2015() Incident {
	return Incident{
		Name: "dynamodb-2015-09-20",
		Kind: Fleet,
		Source: Source{
			Title:        "Summary of the Amazon DynamoDB Service Disruption and Related Impacts in the US-East Region",
			Organisation: "Amazon Web Services",
			Date:         "2015-09-20",
			Link:         "https://aws.amazon.com/message/5467D2/",
			Quote: "On Sunday, at 2:19am PDT, there was a brief network disruption that impacted a portion of DynamoDB's storage " +
				"servers. [...] A storage server will also get its membership assignment after a network disruption or on startup.",
		},
		Story: "DynamoDB's storage servers ask an internal metadata service for their membership, the partitions they hold, " +
			"periodically and after a network disruption. The membership data had grown large with the adoption of Global " +
			"Secondary Indexes. A brief network disruption sent many storage servers to ask at once; the metadata service's answers " +
			"took longer than the servers allowed, so they timed out, retried and took themselves out of service, and the retries " +
			"kept the metadata service overloaded. Customers saw errors on about 55% of requests at the peak. It did not recover " +
			"by itself: AWS paused requests to the metadata service to add capacity, and the service was largely back about " +
			"4 h 50 min after the disruption. Among the corrective actions: more metadata capacity, storage servers asking for " +
			"membership at a lower rate, and a longer time allowed for the answer. (The stored copy of AWS's summary read for the " +
			"gallery stops early in its account of the event; the retries, the 55%, the times and the corrective actions are as " +
			"secondary write-ups that quote it give them: The WHIR in Data Center Knowledge, 2015-09-24, and the postmortems.app index.)",
		Outcome: "stayed collapsed after the blip ended (goodput not back within 10% of the offered load by the run's end)",
		FixText: "timeout_30s: the storage servers allow 30 s for the membership answer instead of 1 s (the report's longer " +
			"allowed time; the value is assumed), everything else the same",
		Given: []Given{
			{What: "peak error rate of customers' requests", Value: 55, Unit: "%",
				Replay: "timeout_1s's membership requests that failed, of those arriving from the blip's end to 10 s before the run's end",
				Note: "not comparable: the source's rate is of customers' data requests, which the replay does not model (its requests " +
					"are the storage servers' membership requests, and a fleet run has no storage server state); the replay's is " +
					"printed as its nearest figure, not tuned to the source's",
				figure: func(rep *Report) float64 {
					return failedShare(rep.Fleet[0], dynamoConfig("", 0).Load.To, 10*time.Second)
				}},
			{What: "from the disruption until requests were paused by hand (2:19 to 5:06 am PDT)", Value: 167, Unit: "min",
				Replay: "timeout_1s's time from the blip's end to the run's end", AtLeast: true,
				Note:   "a run lasts at most an hour; the source's point, that it did not recover by itself, is the outcome",
				figure: sinceTrigger},
			{What: "from the disruption until the service was largely back (about 4 h 50 min)", Value: 290, Unit: "min",
				Replay: "timeout_1s's time from the blip's end to the run's end", AtLeast: true,
				Note:   "a run lasts at most an hour, and the recovery came after requests were paused by hand and capacity added",
				figure: sinceTrigger},
		},
		Assumptions: []Assumption{
			{"metadata service", "a queue of 10 workers, 100 ms exponential a request (100 a second at most), no bound on the queue"},
			{"membership requests", "60 a second (a load of 0.6)"},
			{"the network blip", "300 requests a second for 5 s, from 20 s in"},
			{"time allowed for the answer", "1 s"},
			{"retries", "3 tries in all, no backoff"},
			{"network", "10 ms each way"},
			{"fix", "30 s allowed"},
			{"run", "10 minutes, 20 replicates"},
		},
		Runs: []Run{
			{Name: "timeout_1s", Scenario: "examples/incidents/dynamodb-2015-09-20.yaml", Flags: "-duration 10m -replicates 20"},
			{Name: "timeout_30s", Fix: true, Scenario: "examples/incidents/dynamodb-2015-09-20-fix.yaml", Flags: "-duration 10m -replicates 20"},
		},
		Duration: 10 * time.Minute,
		configs:  []fleet.Config{dynamoConfig("timeout_1s", time.Second), dynamoConfig("timeout_30s", 30*time.Second)},
	}
}
