// Package sqlitecheck holds the SQLite idempotency check's cases (the check
// preset) and its job, a single charge.
package sqlitecheck

import (
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
)

// Case is one step of the SQLite idempotency check, its event forced.
type Case struct {
	Name string
	// Meaning says what the case shows.
	Meaning string
	Config  delivery.Config
}

// Charge is the check's job: one step, a charge, which never fails.
func Charge() provider.Scenario {
	return provider.Scenario{Name: "charge", Noun: "jobs", Steps: []provider.Step{{Name: "charge"}}, Watched: []provider.Watch{{Step: 0, Label: "Jobs charged twice"}}}
}

// Cases returns the check's seven steps, from delivery.Defaults.
func Cases() []Case {
	at := func(edit func(*delivery.Config)) delivery.Config {
		c := delivery.Defaults()
		edit(&c)
		return c
	}
	twoSeconds := provider.Latency{Median: 2 * time.Second}
	return []Case{
		{"sequential pair, check-then-insert", "the handler deduplicates when nothing overlaps; it says nothing about two workers",
			at(func(c *delivery.Config) { c.Store, c.RepeatP, c.RepeatDelay = delivery.Loose, 1, twoSeconds })},
		{"race, check-then-insert", "both workers read before either wrote: move the uniqueness into the schema",
			at(func(c *delivery.Config) { c.Store, c.RepeatP = delivery.Loose, 1 })},
		{"race, claim", "the database refused the second key: treat that error as already handled",
			at(func(c *delivery.Config) { c.Store, c.RepeatP = delivery.Claim, 1 })},
		{"crash after the work, record after", "the key was written after the work and a crash landed between: write it first",
			at(func(c *delivery.Config) {
				c.Store, c.CrashP, c.CrashAt, c.MaxCrashes = delivery.After, 1, delivery.AfterWork, 1
			})},
		{"crash after the claim, claim", "the key was claimed and the work never ran: give the key a status and a release",
			at(func(c *delivery.Config) {
				c.Store, c.CrashP, c.CrashAt, c.MaxCrashes = delivery.Claim, 1, delivery.AfterKey, 1
			})},
		{"TTL 1 s, redelivery after 2 s, claim", "the key expired inside the retry window: keep it longer than the retries",
			at(func(c *delivery.Config) {
				c.Store, c.TTL, c.RepeatP, c.RepeatDelay = delivery.Claim, time.Second, 1, twoSeconds
			})},
		{"TTL 60 s, redelivery after 2 s, claim", "a key that outlives the retry window holds",
			at(func(c *delivery.Config) {
				c.Store, c.TTL, c.RepeatP, c.RepeatDelay = delivery.Claim, time.Minute, 1, twoSeconds
			})},
	}
}
