package retrysim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// setCases are -set arguments over the sign-up with the default queue: each
// accepted with its values (durations in seconds), or refused with a line
// that names what is wrong.
var setCases = []struct {
	arg    string
	values []float64
	err    string
}{
	{"steps[send the welcome email].p_fail=0:0.05:3", []float64{0, 0.025, 0.05}, ""},
	{"steps[send the welcome email].lost_reply=0.1,0.2", []float64{0.1, 0.2}, ""},
	{"steps[save the user].latency=20ms,1s", []float64{0.02, 1}, ""},
	{"queue.ttl=1h,24h,72h", []float64{3600, 86400, 259200}, ""},
	{"queue.backoff.cap=0s:2s:3", []float64{0, 1, 2}, ""},
	{"queue.max_deliveries=1,10", []float64{1, 10}, ""},
	{"queue.crash=0.5", []float64{0.5}, ""},
	{"steps[save the user].p_fail", nil, `steps[save the user].p_fail: gives no values: "steps[save the user].p_fail" is not NAME=VALUES`},
	{"steps[save the usr].p_fail=0.1", nil, `no step is called "save the usr" (the steps are "save the user", `},
	{"steps[save the user].attempts=1:3:3", []float64{1, 2, 3}, ""},
	{"steps[save the user].attempts=0", nil, `steps[save the user].attempts: 0 is not a whole number from 1 to 1000`},
	{"steps[save the user].attempts=1001", nil, `steps[save the user].attempts: 1001 is not a whole number from 1 to 1000`},
	{"steps[save the user].attempts=2.5", nil, `steps[save the user].attempts: 2.5 is not a whole number`},
	{"steps[save the user].colour=3", nil, `a step has no numeric field "colour" (want attempts, latency, lost_reply, p_fail)`},
	{"steps[save the user].lost_reply=0.1", nil, `step "save the user" cannot lose its reply`},
	{"steps[save the user].p_fail=1.5", nil, `steps[save the user].p_fail: 1.5 is not a probability in [0, 1]`},
	{"queue.ttl=9000h", nil, `queue.ttl: 3.24e+07s is not a duration from 0s to 8760h0m0s`},
	{"queue.ttl=soon", nil, `queue.ttl: "soon" is not`},
	{"queue.max_deliveries=0", nil, `queue.max_deliveries: 0 is not a whole number from 1 to 1000`},
	{"queue.colour=1", nil, `the queue has no numeric field "colour"`},
	{"p_fial=0.1", nil, `p_fial: unknown parameter`},
}

func TestParseSet(t *testing.T) {
	sc, q := provider.Signup(0.01, 0.005), delivery.Defaults()
	for _, tt := range setCases {
		t.Run(tt.arg, func(t *testing.T) {
			p, vals, err := retrysim.ParseSet(tt.arg, sc, &q)
			if tt.err != "" {
				var fe *schema.FieldError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("ParseSet = %v; want a *FieldError containing %q", err, tt.err)
				}
				return
			}
			if err != nil || p.Name != strings.SplitN(tt.arg, "=", 2)[0] || len(vals) != len(tt.values) {
				t.Fatalf("ParseSet = %v, %v, %v; want %s and %v", p.Name, vals, err, tt.arg, tt.values)
			}
			for i := range vals {
				if vals[i] != tt.values[i] {
					t.Errorf("values[%d] = %v; want %v", i, vals[i], tt.values[i])
				}
			}
		})
	}
	if _, _, err := retrysim.ParseSet("queue.ttl=1h", sc, nil); err == nil || !strings.Contains(err.Error(), "only the delivery model reads it") {
		t.Errorf("queue.ttl without a queue: %v; want refused", err)
	}
}

// FuzzParseSet: ParseSet never panics, its errors are one line, and what it
// accepts is a known parameter's values, each one it takes.
func FuzzParseSet(f *testing.F) {
	for _, tt := range setCases {
		f.Add(tt.arg)
	}
	sc, q := provider.Signup(0.01, 0.005), delivery.Defaults()
	f.Fuzz(func(t *testing.T, arg string) {
		p, vals, err := retrysim.ParseSet(arg, sc, &q)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		if len(vals) == 0 {
			t.Fatalf("%q: no values", arg)
		}
		for _, v := range vals {
			if err := p.Check(v); err != nil {
				t.Fatalf("%q: accepted %v that %s does not take: %v", arg, v, p.Name, err)
			}
		}
	})
}
