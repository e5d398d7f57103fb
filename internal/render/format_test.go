package render

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/stats"
)

// Expected strings come from Node.js 20 (x.toFixed(d) and Math.round), the
// article's runtime, so the table prints what the article's code would.
func TestToFixedMatchesJavaScript(t *testing.T) {
	tests := []struct {
		x      float64
		digits int
		want   string
	}{
		{0.0625, 3, "0.063"}, // an exact tie: JavaScript takes the larger, strconv the even
		{93.8125, 3, "93.813"},
		{99.9375, 3, "99.938"},
		{1.005, 2, "1.00"}, // 1.005 is really 1.00499999...
		{99.9005, 3, "99.900"},
		{99.9995, 3, "99.999"},
		{99.9995, 2, "100.00"},
		{12.3455, 3, "12.345"},
		{0, 3, "0.000"},
		{100, 3, "100.000"},
		{2.5e-7, 3, "0.000"},
	}
	for _, tt := range tests {
		if got := toFixed(tt.x, tt.digits); got != tt.want {
			t.Errorf("toFixed(%v, %d) = %q; want %q", tt.x, tt.digits, got, tt.want)
		}
	}
}

func TestPercentOfMatchesArticle(t *testing.T) {
	tests := []struct {
		part, whole int64
		want        string
	}{
		{999_989, 1_000_000, "99.999%"},
		{999_005, 1_000_000, "99.900%"}, // 100*(part/whole) would print 99.901%
		{999_750, 1_000_000, "99.975%"},
		{1599, 1600, "99.938%"},
		{0, 7, "0.000%"},
	}
	for _, tt := range tests {
		if got := percentOf(tt.part, tt.whole); got != tt.want {
			t.Errorf("percentOf(%d, %d) = %q; want %q", tt.part, tt.whole, got, tt.want)
		}
	}
}

func TestRoundJS(t *testing.T) {
	tests := []struct {
		calls, jobs int64
		want        string
	}{
		{10106306, 1e6, "10.11"},
		{10603013, 1e6, "10.6"},
		{1005, 100, "10.05"},
		{1015, 100, "10.15"},
		{2345, 1000, "2.35"},
	}
	for _, tt := range tests {
		if got := roundJS(float64(tt.calls)/float64(tt.jobs), 2); got != tt.want {
			t.Errorf("roundJS(%d/%d, 2) = %q; want %q", tt.calls, tt.jobs, got, tt.want)
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 464233: "464,233", 1_000_000_000: "1,000,000,000", -4971: "-4,971"} {
		if got := human.Group(n); got != want {
			t.Errorf("human.Group(%d) = %q; want %q", n, got, want)
		}
	}
}

// A scenario built in Go, not read from a file, names its steps' own policy
// in the sign-up's title too; a step's own backoff only with the delivery
// model, and a sign-up that sets none keeps the article's title.
func TestReportTitleNamesOwnPolicies(t *testing.T) {
	signup := stats.Params{Jobs: 1000, Noun: "sign-ups", Steps: 10, PFail: 0.01, LossyStep: "send the welcome email",
		LostReply: 0.005, Attempts: 3, RNG: "pcg", Seed: 1}
	own := signup
	own.Policies = []stats.StepPolicy{{Step: "save the user", Attempts: 1}, {Step: "send the welcome email", KeyMode: "same", Backoff: "constant base 1s"}}
	queued := own
	queued.Delivery = &stats.DeliveryParams{}
	const head = `1,000 sign-ups, 10 steps, each call fails 1% of the time, the reply to "send the welcome email" is lost 0.5% of the time, up to 3 attempts`
	for _, tt := range []struct {
		name string
		p    stats.Params
		want string
	}{
		{"none", signup, head + "; pcg, seed 1"},
		{"own", own, head + " (save the user: 1 attempt; send the welcome email: same key); pcg, seed 1"},
		{"delivery", queued, head + " (save the user: 1 attempt; send the welcome email: same key, backoff constant base 1s); pcg, seed 1"},
	} {
		title, _, _ := strings.Cut(reportTitle(tt.p), "\n")
		if title != tt.want {
			t.Errorf("%s: reportTitle = %q; want %q", tt.name, title, tt.want)
		}
	}
}

// A run with no strategy.Retry (Params.Attempts 0: every strategy written in
// Go against strategy.Strategy) has no run-wide attempts to name: its title
// says that each strategy sets its own limits, not "up to 0 attempts"; beside
// a strategy.Retry, the attempts are said to be the Retry's alone.
func TestReportTitleOwnStrategies(t *testing.T) {
	alone := stats.Params{Jobs: 1000, Noun: "invoices", Steps: 4, PFail: 0.02, LossyStep: "charge the card", LostReply: 0.01, RNG: "pcg", Seed: 42, OwnStrategies: true}
	beside := alone
	beside.Attempts = 3
	const head = `1,000 invoices, 4 steps, each call fails 2% of the time, the reply to "charge the card" is lost 1% of the time, `
	for _, tt := range []struct {
		p    stats.Params
		want string
	}{
		{alone, head + "each strategy's own limits; pcg, seed 42"},
		{beside, head + "up to 3 attempts, other strategies their own limits; pcg, seed 42"},
	} {
		if got := reportTitle(tt.p); got != tt.want {
			t.Errorf("reportTitle = %q; want %q", got, tt.want)
		}
	}
}
