// Package backoffkind says what a backoff policy, by name, reads of its
// settings: one rule for backoff's Check and every model's unread settings.
package backoffkind

import "fmt"

// Schedule reports whether the policy called name is a job queue's fixed
// schedule, which reads neither base nor cap.
func Schedule(name string) bool {
	return name == "sidekiq" || name == "river" || name == "oban" || name == "temporal"
}

// Unread says why the policy called name never reads its base, and its
// cap, each "" when it does.
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
