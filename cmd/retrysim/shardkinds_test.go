package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// everyKind is a small run of each of the seven kinds, two incidents (one
// on the fleet model, one on the workers model) and a sweep of each of
// fleet, graph and workers: its command line and
// the formats it prints (the chain prints one).
var everyKind = []struct {
	name    string
	args    []string
	formats []string
}{
	{"table", []string{"-jobs", "3000", "-p-fail", "0.05"}, []string{"table", "csv", "json"}},
	{"sweep", []string{"sweep", "-p-fail", "0.01,0.2", "-attempts", "2,3", "-jobs", "200", "-strategies", "step-nokey,job-samekey"}, []string{"table", "csv", "json"}},
	{"fleet", []string{"fleet", "-preset", "brooker-collapse", "-duration", "30s", "-replicates", "5"}, []string{"table", "csv", "json"}},
	{"graph", []string{"graph", "-preset", "sre-three-layers", "-duration", "10s", "-replicates", "5"}, []string{"table", "csv", "json"}},
	{"workers", []string{"workers", "-preset", "sidekiq-outage", "-duration", "10s", "-replicates", "5"}, []string{"table", "csv", "json"}},
	{"fleet-map", []string{"fleet-map", "-rates", "10,40", "-heights", "80", "-lengths", "1s,2s", "-replicates", "3", "-after", "10s", "-from", "2s"}, []string{"table", "csv", "json"}},
	{"chain", []string{"chain", "-split-orbit", "3", "-split-horizon", "10s", "-split-runs", "4", "-split-effort", "10"}, []string{""}},
	{"incident fleet", []string{"incident", "google-cloud-2025-06-12", "-replicates", "4"}, []string{"table", "csv", "json"}},
	{"incident workers", []string{"incident", "sqs-visibility-payment", "-replicates", "4"}, []string{"table", "csv", "json"}},
	{"sweep fleet", []string{"sweep", "fleet", "-set", "client.timeout=1s,2s", "-set", "client.attempts=1:3:2", "-duration", "10s", "-replicates", "2"}, []string{"table", "markdown", "csv", "json"}},
	{"sweep graph", []string{"sweep", "graph", "-preset", "sre-three-layers", "-set", "graph.entries[0].client.attempts=1,3", "-duration", "10s", "-replicates", "2"}, []string{"table", "csv", "json"}},
	{"sweep workers", []string{"sweep", "workers", "-scenario", "../../examples/workers-signup.yaml", "-set", "graph.services[workers].server.capacity=5,10,20", "-replicates", "2"}, []string{"table", "csv", "json"}},
	{"tune workers", []string{"tune", "workers", "-scenario", "../../examples/workers-drain.yaml", "-search", "graph.services[workers].server.capacity=5:7:3",
		"-minimize", "graph.services[workers].server.capacity", "-require", "drain_seconds<=13", "-budget", "30"}, []string{"table", "markdown", "csv", "json", "html"}},
}

// TestEveryKindMerges: for each of the seven kinds, the two incidents and
// the three sweeps of a kind, the run cut into 3 shards (one of them by
// -shard auto/3, its index from the environment, and with another
// -workers) and merged prints the single run's bytes, in every format the
// kind prints.
func TestEveryKindMerges(t *testing.T) {
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("PARALLEL_SEQ", "")
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	for _, k := range everyKind {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for i, slice := range []string{"2/3", "auto/3", "0/3"} {
				path := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
				args := append(k.args[:len(k.args):len(k.args)], "-shard", slice, "-o", path, "-workers", fmt.Sprint(1+i))
				if out, errOut, code := retrysim(t, args...); code != 0 || out != "" {
					t.Fatalf("%v: exit %d, stdout %q, %s", args, code, out, errOut)
				}
				files = append(files, path)
			}
			for _, f := range k.formats {
				var format []string
				if f != "" {
					format = []string{"-format", f}
				}
				whole, errOut, code := retrysim(t, append(k.args[:len(k.args):len(k.args)], format...)...)
				if code != 0 || whole == "" {
					t.Fatalf("whole run -format %s: exit %d, %s", f, code, errOut)
				}
				merged, errOut, code := retrysim(t, append(append([]string{"merge"}, files...), format...)...)
				if code != 0 || merged != whole {
					t.Errorf("merge -format %s: exit %d, %s; printed\n%s\nwant the whole run's\n%s", f, code, errOut, merged, whole)
				}
			}
		})
	}
}

// A shard of graph or workers, as of fleet, writes no picture, series,
// format or width: merge's own flags say them, and the run says so.
func TestGraphShardOutputsRefused(t *testing.T) {
	for _, k := range everyKind[3:5] {
		for _, tc := range []struct {
			flags []string
			want  string
		}{
			{[]string{"-plot", "x.png"}, "retrysim: -plot: a shard draws nothing; give -plot to retrysim merge\n"},
			{[]string{"-format", "json"}, "retrysim: -format: a shard carries the run's settings, not how it is printed; give -format to retrysim merge\n"},
		} {
			args := append(append(k.args[:len(k.args):len(k.args)], "-shard", "0/2"), tc.flags...)
			if out, errOut, code := retrysim(t, args...); code != 2 || out != "" || errOut != tc.want {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errOut, tc.want)
			}
		}
	}
}

// A graph or workers run from a scenario file merges to the single run's
// bytes; once the file has changed, its shards are refused, the echo (the
// file's digest) naming it, with one line and exit 2.
func TestGraphShardsOfAFile(t *testing.T) {
	for _, tc := range []struct{ kind, file string }{{"graph", "graph-checkout.yaml"}, {"workers", "workers-signup.yaml"}} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			src, err := os.ReadFile(filepath.Join("../../examples", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, tc.file)
			if err := os.WriteFile(file, src, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{tc.kind, "-scenario", file, "-replicates", "3"}
			whole, errOut, code := retrysim(t, append(args, "-format", "csv")...)
			if code != 0 {
				t.Fatalf("whole run: exit %d: %s", code, errOut)
			}
			var files []string
			for i := range 2 {
				files = append(files, filepath.Join(dir, fmt.Sprintf("s%d.json", i)))
				if _, errOut, code := retrysim(t, append(args[:len(args):len(args)], "-shard", fmt.Sprintf("%d/2", i), "-o", files[i])...); code != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
				}
			}
			if merged, errOut, code := retrysim(t, append(append([]string{"merge"}, files...), "-format", "csv")...); code != 0 || merged != whole {
				t.Fatalf("merge: exit %d, %s; printed\n%s\nwant\n%s", code, errOut, merged, whole)
			}
			if err := os.WriteFile(file, append(src, "\n# edited\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code = retrysim(t, append([]string{"merge"}, files...)...)
			if code != 2 || !strings.HasPrefix(errOut, `retrysim: merge: the shards ran with {"scenario_sha256":`) || !strings.HasSuffix(errOut, "(a scenario file changed since?)\n") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("merge after the file changed: exit %d, %q; want 2 and the file's digest refused", code, errOut)
			}
		})
	}
}
