// Package provider models the external services a job calls: each step of a scenario is a
// provider that can fail, lose its reply, and (if it honours idempotency keys) do its work
// once per key. Its memory is per job; it knows nothing about retries.
package provider

// Step is one call of a scenario.
type Step struct {
	// Name says what the step does.
	Name string
	// PFail is the probability that a call fails before doing anything.
	PFail float64
	// CanLoseReply marks a step whose reply can be lost after its work, drawing a second number.
	CanLoseReply bool
	// LostReply is the probability that such a step's reply is lost.
	LostReply float64
	// HonoursKeys marks a provider that performs the work once per key it has seen.
	HonoursKeys bool
	// Latency is how long a call takes, in virtual time; zero by default.
	Latency Latency
	// Retry is the step's own attempts, key mode and backoff; its zero value keeps the run's.
	Retry StepRetry
}

// Scenario is the ordered steps of a job and the steps whose repeats are counted.
type Scenario struct {
	Name  string
	Steps []Step
	// Watched are the steps whose side effect happening twice in one job is counted, each in
	// a column of its own (the first is duplicate_users); at least one.
	Watched []Watch
	// Noun names what a job is, for titles: "sign-ups".
	Noun string
}

// Watch is one watched step.
type Watch struct {
	// Step is the step's index in Steps.
	Step int
	// Label heads the step's column; empty means Jobs with 2+ "<step name>".
	Label string
}

// Signup is the article's scenario: ten steps failing with pFail, the welcome email (step
// 7) losing its reply with lostReply and alone accepting keys.
func Signup(pFail, lostReply float64) Scenario {
	names := []string{
		"save the user", "create the billing customer", "create the workspace",
		"upload the default avatar", "add to the CRM", "subscribe to the newsletter",
		"send the welcome email", "notify the sales channel", "record the analytics event",
		"schedule the day-3 email",
	}
	const email = 6
	steps := make([]Step, len(names))
	for i, n := range names {
		steps[i] = Step{Name: n, PFail: pFail}
	}
	steps[email].CanLoseReply = true
	steps[email].LostReply = lostReply
	steps[email].HonoursKeys = true
	return Scenario{
		Name:    "signup",
		Steps:   steps,
		Watched: []Watch{{Step: email, Label: "Users with 2+ welcome emails"}},
		Noun:    "sign-ups",
	}
}
