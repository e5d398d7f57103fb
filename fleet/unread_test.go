package fleet

import "testing"

// TestUnread names a constant load's peak and a run without hedges'
// hedge delay, and leaves what a latency server reads.
func TestUnread(t *testing.T) {
	c := Config{Load: Shape{Kind: Constant}, Server: Server{Kind: Latency}, Client: Client{Attempts: 3}}
	got := c.Unread()
	for _, k := range []string{"peak", "from", "to", "outage-mode", "hedge-delay", "capacity", "limit"} {
		if got[k] == "" {
			t.Errorf("Unread()[%q] is empty; want a reason", k)
		}
	}
	for _, k := range []string{"slope", "base", "backoff"} {
		if got[k] != "" {
			t.Errorf("Unread()[%q] = %q; want it read", k, got[k])
		}
	}
}
