package strategy

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/schema"
)

func TestParse(t *testing.T) {
	tests := []struct {
		id   string
		want Retry
		name string
	}{
		{"step-nokey", Retry{Scope: EachStep, Keys: schema.NoKeys, Attempts: 3}, "Retry each step, no key"},
		{"step-newkey", Retry{Scope: EachStep, Keys: schema.FreshKeys, Attempts: 3}, "Retry each step, new key on every call"},
		{"step-samekey", Retry{Scope: EachStep, Keys: schema.SameKey, Attempts: 3}, "Retry each step, same key every time"},
		{"job-samekey", Retry{Scope: WholeJob, Keys: schema.SameKey, Attempts: 3}, "Retry the whole job, same key"},
		{"job-samekey-skip", Retry{Scope: WholeJob, Keys: schema.SameKey, SkipFinished: true, Attempts: 3}, "Retry the whole job, same key, skip finished steps"},
		{"job-nokey-skip", Retry{Scope: WholeJob, Keys: schema.NoKeys, SkipFinished: true, Attempts: 3}, "Retry the whole job, no key, skip finished steps"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := Parse(tt.id, 3)
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tt.id, got, err, tt.want)
			}
			if got.Name() != tt.name {
				t.Errorf("Parse(%q).Name() = %q; want %q", tt.id, got.Name(), tt.name)
			}
		})
	}
	for _, bad := range []string{"", "step", "each-nokey", "step-somekey", "job-samekey-skip-x", "job-samekey-store", "STEP-NOKEY"} {
		if _, err := Parse(bad, 3); err == nil || !strings.Contains(err.Error(), "unknown strategy") {
			t.Errorf("Parse(%q) error = %v; want unknown strategy", bad, err)
		}
	}
}

func TestLabelOverridesName(t *testing.T) {
	r := Retry{Label: "mine"}
	if r.Name() != "mine" {
		t.Errorf("Name() = %q; want the label %q", r.Name(), "mine")
	}
}
