// Package backoffkind says what a backoff policy reads of its settings, by
// the policy's name (backoff.Kind's String): package backoff's Check and
// every model's unread settings ask it, so that one rule decides.
package backoffkind

import "fmt"

// Schedule reports whether the policy called name is a job queue's fixed
// schedule, whose waits are set in seconds by the attempt alone: it reads
// neither the base nor the cap.
func Schedule(name string) bool {
	return name == "sidekiq" || name == "river" || name == "oban" || name == "temporal"
}

// Unread says why the policy called name never reads its base, and why
// never its cap, each "" when it does: none waits nothing, a schedule sets
// its own waits, a constant backoff has no cap. Flags and scenario files
// refuse a base or a cap by this one rule.
func Unread(name string) (base, cap string) {
	switch {
	case name == "none":
		why := "the backoff policy none never waits"
		return why, why
	case Schedule(name):
		why := fmt.Sprintf("the %s schedule sets its own waits, in seconds by attempt", name)
		return why, why
	case name == "constant":
		return "", "the constant backoff waits its base, with no cap"
	}
	return "", ""
}
