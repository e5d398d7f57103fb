package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Merge names the first field in which two shards differ by its path in the
// file, with both values as written, where it printed Go map dumps
// ("delivery is map[backoff:... ttl:1h0m0s ...] in one and map[...] in the
// other", issue 21).
func TestMergeNamesTheFieldThatDiffers(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	shard := func(name, src string, args ...string) string {
		t.Helper()
		if src != "" {
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, name)
		if _, errOut, code := retrysim(t, append(args, "-jobs", "100000", "-engine", "plain", "-o", p)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		return p
	}
	ttl1 := shard("ttl1.json", "", "-model", "delivery", "-store", "claim", "-ttl", "1h", "-shard", "0/2")
	ttl2 := shard("ttl2.json", "", "-model", "delivery", "-store", "claim", "-ttl", "2h", "-shard", "1/2")
	none := shard("none.json", "", "-shard", "1/2")
	a := shard("a.json", "steps:\n  - {name: charge, p_fail: 0.1}\n  - {name: email}\nwatched: {step: charge, label: Charged twice}\n", "-scenario", file, "-shard", "0/2")
	b := editShard(t, shard("b.json", "", "-scenario", file, "-shard", "1/2"), map[string]any{"model.watched.0.label": "Charged 2+"})
	for _, tt := range []struct {
		files []string
		want  string
	}{
		{[]string{ttl1, ttl2}, `are shards of different runs: delivery.ttl is "1h0m0s" in one and "2h0m0s" in the other`},
		{[]string{ttl1, none}, `are shards of different runs: delivery is {"backoff":"full-jitter base 100ms cap 2s","crash":0,"crash_... in one and absent in the other`},
		{[]string{a, b}, `are shards of different runs: their models (scenario steps, watched steps or queue) differ: model.watched[0].label is "Charged twice" in one and "Charged 2+" in the other`},
	} {
		_, errOut, code := retrysim(t, append([]string{"merge"}, tt.files...)...)
		if code != 2 || !strings.HasSuffix(strings.TrimSpace(errOut), tt.want) || strings.Contains(errOut, "map[") {
			t.Errorf("merge %s: exit %d, %q; want exit 2 and %q", strings.Join(tt.files, " "), code, errOut, tt.want)
		}
	}
}
