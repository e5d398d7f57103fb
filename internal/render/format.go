package render

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/stats"
)

// toFixed formats x >= 0 with digits decimals as JavaScript's Number.toFixed
// does: from the exact binary value, ties going up (strconv rounds ties to
// even, which differs from the article on values such as 0.0625).
func toFixed(x float64, digits int) string {
	if math.IsNaN(x) {
		return "-"
	}
	if math.IsInf(x, 0) || x < 0 {
		return strconv.FormatFloat(x, 'f', digits, 64)
	}
	scale := new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil))
	v := new(big.Float).SetPrec(2048).SetFloat64(x)
	v.Mul(v, scale).Add(v, big.NewFloat(0.5))
	n, _ := v.Int(nil) // truncates toward zero, which is floor here
	s := n.String()
	if digits == 0 {
		return s
	}
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	return s[:len(s)-digits] + "." + s[len(s)-digits:]
}

// roundJS formats x >= 0 as JavaScript prints Math.round(x * 10^d) / 10^d; "-" for NaN.
func roundJS(x float64, digits int) string {
	if math.IsNaN(x) {
		return "-"
	}
	p := math.Pow(10, float64(digits))
	return strconv.FormatFloat(math.Round(x*p)/p, 'f', -1, 64)
}

// percentOf formats part/whole as the article does (100*part/whole, 3 decimals); "-" of none.
func percentOf(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return toFixed(float64(100*part)/float64(whole), 3) + "%"
}

// shortFloat prints a parameter for people: 0.5, 1, 7 (not 7.000000000000001).
func shortFloat(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// reportTitle is the line above a table, in the spirit of the article's.
func reportTitle(p stats.Params) string {
	attempts := "attempts"
	if p.Attempts == 1 {
		attempts = "attempt"
	}
	upTo := fmt.Sprintf("up to %d %s", p.Attempts, attempts)
	if p.Attempts == 0 {
		// No strategy is a strategy.Retry: each sets its own limits.
		upTo = "each strategy's own limits"
	}
	if own := ownPolicies(p); own != "" {
		// The steps that retry otherwise than the run, where it is named.
		upTo += " (" + own + ")"
	}
	if p.OwnStrategies && p.Attempts > 0 {
		// The attempts are the strategy.Retry strategies'.
		upTo += ", other strategies their own limits"
	}
	jobs := human.Group(p.Jobs) + " " + p.Noun
	if p.Jobs == 1 { // "1 sign-up": the noun is written in the plural
		jobs = "1 " + strings.TrimSuffix(p.Noun, "s")
	}
	steps := human.Count(int64(p.Steps), "step")
	t := fmt.Sprintf("%s, %s, each call fails %s%% of the time, the reply to %q is lost %s%% of the time, %s; %s, seed %d",
		jobs, steps, shortFloat(100*p.PFail), p.LossyStep, shortFloat(100*p.LostReply),
		upTo, p.RNG, p.Seed)
	if p.File == "" && p.StepList != nil { // a scenario built in Go whose steps differ
		t = fmt.Sprintf("%s, %s, %s, %s; %s, seed %d", jobs, steps, stepRates(*p.StepList), upTo, p.RNG, p.Seed)
	}
	if p.File != "" {
		from := p.File
		if p.Overrides != "" {
			from += " (" + p.Overrides + " over the file's)"
		}
		t = fmt.Sprintf("%s, %s from %s, %s; %s, seed %d",
			jobs, steps, from, upTo, p.RNG, p.Seed)
	}
	if p.Engine == "skip" {
		t += ", " + engineTerm(p.Engine)
	}
	if p.Replicates > 1 {
		t += fmt.Sprintf("; %d replicates, counts pooled", p.Replicates)
	}
	if d := p.Delivery; d != nil {
		t += human.Durations(fmt.Sprintf("\n"+deliveryModelTerm+"; queue: store %s, key TTL %s, lease %s, visibility timeout %s, up to %s; repeated requests %s%% (delay %s); crashes %s%% at %s; calls take %s; backoff %s",
			echoText(d, "store"), echoText(d, "ttl"), echoText(d, "lease"), echoText(d, "visibility"), human.Count(int64(echoNumber(d, "max_deliveries")), "delivery"),
			shortFloat(100*echoNumber(d, "repeat")), echoText(d, "repeat_delay"), shortFloat(100*echoNumber(d, "crash")), echoText(d, "crash_at"), d.Latency, d.Backoff))
	}
	return t
}

// stepRates says at what rates each step's calls fail and their replies are lost.
func stepRates(steps []stats.StepParams) string {
	var fails, lost []string
	for _, st := range steps {
		pf, _ := st.Lookup("p_fail").(float64)
		fails = append(fails, shortFloat(100*pf)+"%")
		if l, _ := st.Lookup("lost_reply").(float64); l > 0 {
			lost = append(lost, fmt.Sprintf("the reply to %q is lost %s%% of the time", st.Name, shortFloat(100*l)))
		}
	}
	return strings.Join(append([]string{"calls fail " + strings.Join(fails, ", ") + " of the time, step by step"}, lost...), ", ")
}

// echoText is the text the echo d holds under key, "" if none.
func echoText(d *stats.DeliveryParams, key string) string {
	text, _ := d.Lookup(key).(string)
	return text
}

// echoNumber is the number the echo d holds under key, 0 if none.
func echoNumber(d *stats.DeliveryParams, key string) float64 {
	switch v := d.Lookup(key).(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// deliveryModelTerm opens the delivery model's line of a title.
const deliveryModelTerm = "delivery model"

// engineTerm names the engine e ("skip" or "plain") in titles.
func engineTerm(e string) string { return e + " engine" }

// keyModeWords say what a step's own key mode sends, as the strategies' labels do.
var keyModeWords = map[string]string{"none": "no key", "fresh": "new key on every call", "same": "same key"}

// ownPolicies names the steps that set their own policy and what each sets.
func ownPolicies(p stats.Params) string {
	var steps []string
	for _, st := range p.Policies {
		var set []string
		switch {
		case st.Attempts == 1:
			set = append(set, "1 attempt")
		case st.Attempts > 1:
			set = append(set, strconv.Itoa(st.Attempts)+" attempts")
		}
		if st.KeyMode != "" {
			words, ok := keyModeWords[st.KeyMode]
			if !ok {
				words = "keys " + st.KeyMode
			}
			set = append(set, words)
		}
		if st.Backoff != "" && p.Delivery != nil {
			set = append(set, "backoff "+st.Backoff)
		}
		if len(set) > 0 {
			steps = append(steps, st.Step+": "+strings.Join(set, ", "))
		}
	}
	return strings.Join(steps, "; ")
}
