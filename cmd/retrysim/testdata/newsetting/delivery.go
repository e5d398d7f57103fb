package delivery

import "time"

// The queue's new setting: one declaration, at the end of the table.
func init() {
	settings = append(settings, duration("redelivery_after", "redelivery_after", func(c *Config) *time.Duration { return &c.RedeliveryAfter }).With(
		"an unacked message comes back after this `duration`", "45s", nil))
}
