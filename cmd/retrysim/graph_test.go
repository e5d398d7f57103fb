package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// graphJSON is the part of `graph -format json` the tests read.
type graphJSON struct {
	Title  string           `json:"title"`
	Params []map[string]any `json:"params"`
	Rows   []graphJSONRow   `json:"rows"`
	Series []struct {
		Run        string  `json:"run"`
		Service    string  `json:"service"`
		T          int     `json:"t"`
		Starts     float64 `json:"starts"`
		Successes  float64 `json:"successes"`
		Decided    float64 `json:"retries_decided"`
		Retries    float64 `json:"retries_sent"`
		Timeouts   float64 `json:"timeouts"`
		Conflicts  float64 `json:"conflicts"`
		InProgress float64 `json:"in_progress"`
	} `json:"series"`
}

// graphJSONRow is a row of graphJSON: a run's service, or an entry.
type graphJSONRow struct {
	Run             string   `json:"run"`
	Service         string   `json:"service"`
	Depth           int      `json:"depth"`
	Requests        float64  `json:"requests"`
	Calls           float64  `json:"calls"`
	Amplification   float64  `json:"amplification"`
	AmplificationLo *float64 `json:"amplification_lo"`
	AmplificationHi *float64 `json:"amplification_hi"`
	Succeeded       float64  `json:"succeeded"`
	Goodput         float64  `json:"goodput"`
	Timeouts        float64  `json:"timeouts"`
	Duplicates      float64  `json:"duplicates"`
	P50             *float64 `json:"latency_p50"`
	P95             *float64 `json:"latency_p95"`
	P99             *float64 `json:"latency_p99"`
	Peak            *float64 `json:"peak_in_progress"`
	ByDepth         []struct {
		Depth         int     `json:"depth"`
		Amplification float64 `json:"amplification"`
	} `json:"amplification_by_depth"`
}

// graphRun runs retrysim graph with args and -format json, failing the
// test unless it succeeds.
func graphRun(t *testing.T, args ...string) graphJSON {
	t.Helper()
	out, errOut, code := retrysim(t, append(append([]string{"graph"}, args...), "-format", "json")...)
	if code != 0 {
		t.Fatalf("retrysim graph %v: exit %d: %s", args, code, errOut)
	}
	var got graphJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// The calls at each layer of the SRE book's and the Builders' Library's
// stacks, through the command: with every call at the bottom failing and no
// timeout binding, attempts a at each of d callers make exactly a^d calls
// at depth d for each request, so every replicate has the same figure and
// its interval is that figure.
func TestGraphExactAmplification(t *testing.T) {
	for _, tt := range []struct {
		preset, run string
		want        map[string]float64
		byDepth     []float64 // the same a depth, in the end-to-end row
	}{
		{"sre-three-layers", "4_attempts_each", map[string]float64{"frontend": 4, "backend": 16, "database": 64}, []float64{4, 16, 64}},
		{"aws-five-deep", "3_tries_each", map[string]float64{"layer1": 3, "layer2": 9, "layer3": 27, "layer4": 81, "layer5": 243}, []float64{3, 9, 27, 81, 243}},
		{"aws-five-deep", "top_only", map[string]float64{"layer1": 3, "layer2": 3, "layer3": 3, "layer4": 3, "layer5": 3}, []float64{3, 3, 3, 3, 3}},
	} {
		got := graphRun(t, "-preset", tt.preset, "-replicates", "3", "-duration", "10s")
		depth := 0
		found := 0
		for _, r := range got.Rows {
			if r.Run == tt.run && r.Depth == 0 {
				var by []float64
				for i, d := range r.ByDepth {
					if d.Depth != i+1 {
						t.Errorf("%s/%s: amplification_by_depth[%d] is depth %d", tt.preset, tt.run, i, d.Depth)
					}
					by = append(by, d.Amplification)
				}
				if !slices.Equal(by, tt.byDepth) {
					t.Errorf("%s/%s: amplification by depth %v; want %v", tt.preset, tt.run, by, tt.byDepth)
				}
			}
			w, ok := tt.want[r.Service]
			if r.Run != tt.run || !ok {
				continue
			}
			found++
			depth++
			if r.Depth != depth {
				t.Errorf("%s/%s: %s at depth %d; want %d", tt.preset, tt.run, r.Service, r.Depth, depth)
			}
			if r.Amplification != w || r.AmplificationLo == nil || *r.AmplificationLo != w || *r.AmplificationHi != w {
				t.Errorf("%s/%s: %s's amplification %v [%v, %v]; want exactly %v", tt.preset, tt.run, r.Service, r.Amplification, r.AmplificationLo, r.AmplificationHi, w)
			}
			if r.Succeeded != 0 {
				t.Errorf("%s/%s: %s succeeded %v; every call fails", tt.preset, tt.run, r.Service, r.Succeeded)
			}
		}
		if found != len(tt.want) {
			t.Errorf("%s/%s: %d of the %d services found", tt.preset, tt.run, found, len(tt.want))
		}
	}
}

// A graph of one entry and one service without calls is the fleet model's
// run: retrysim graph on such a file prints the figures and the series
// retrysim fleet prints for the same settings and seed.
func TestGraphOneEdgeIsFleet(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.yaml")
	const src = `graph:
  name: one
  duration: 20s
  net: 50ms
  entries:
    - to: server
      load: {shape: spike, rate: 30, peak: 60, from: 5s, to: 8s}
      client: {timeout: 2s, attempts: 4, backoff: full-jitter, backoff_base: 200ms, policy: token-bucket, bucket_rate: 0.2}
  services:
    - name: server
      server: {kind: latency, base: 500ms, slope: 20ms, p_fail: 0.05}
      outage: {from: 12s, to: 14s, mode: fail}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"-replicates", "3", "-seed", "5"}
	g := graphRun(t, append([]string{"-scenario", file}, flags...)...)
	out, errOut, code := retrysim(t, append([]string{"fleet", "-duration", "20s", "-net", "50ms", "-shape", "spike", "-rate", "30", "-peak", "60",
		"-from", "5s", "-to", "8s", "-timeout", "2s", "-attempts", "4", "-backoff", "full-jitter", "-backoff-base", "200ms", "-policy", "token-bucket",
		"-bucket-rate", "0.2", "-server", "latency", "-base", "500ms", "-slope", "20ms", "-p-fail", "0.05", "-outage", "12s:14s", "-format", "json"}, flags...)...)
	if code != 0 {
		t.Fatalf("fleet: exit %d: %s", code, errOut)
	}
	var f struct {
		Rows []struct {
			Requests      float64  `json:"requests"`
			Succeeded     float64  `json:"succeeded"`
			Goodput       float64  `json:"goodput"`
			Amplification float64  `json:"amplification"`
			Timeouts      float64  `json:"timeouts"`
			Duplicates    float64  `json:"duplicates"`
			P50           *float64 `json:"latency_p50"`
			P95           *float64 `json:"latency_p95"`
			P99           *float64 `json:"latency_p99"`
			Peak          *float64 `json:"peak_in_progress"`
		} `json:"rows"`
		Series []struct {
			T          int     `json:"t"`
			Starts     float64 `json:"starts"`
			Successes  float64 `json:"successes"`
			Decided    float64 `json:"retries_decided"`
			Retries    float64 `json:"retries_sent"`
			Timeouts   float64 `json:"timeouts"`
			Conflicts  float64 `json:"conflicts"`
			InProgress float64 `json:"in_progress"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	if len(g.Rows) != 2 || len(f.Rows) != 1 {
		t.Fatalf("graph rows %d (want an entry's and the server's), fleet rows %d", len(g.Rows), len(f.Rows))
	}
	fr, gr := f.Rows[0], g.Rows[1]
	if fr.Requests < 400 || fr.Timeouts == 0 || fr.Succeeded == 1 {
		t.Fatalf("the run should time out and fail some requests: %+v", fr)
	}
	for _, c := range []struct {
		name      string
		fleet, gr any
	}{
		{"requests", fr.Requests, gr.Requests}, {"succeeded", fr.Succeeded, gr.Succeeded}, {"goodput", fr.Goodput, gr.Goodput},
		{"amplification", fr.Amplification, gr.Amplification}, {"timeouts", fr.Timeouts, gr.Timeouts},
		{"duplicates", fr.Duplicates, gr.Duplicates}, {"latency_p50", *fr.P50, *gr.P50}, {"latency_p95", *fr.P95, *gr.P95},
		{"latency_p99", *fr.P99, *gr.P99}, {"peak_in_progress", *fr.Peak, *gr.Peak},
		{"end-to-end succeeded", fr.Succeeded, g.Rows[0].Succeeded}, {"end-to-end latency_p99", *fr.P99, *g.Rows[0].P99},
	} {
		if c.fleet != c.gr {
			t.Errorf("%s: fleet %v, graph %v", c.name, c.fleet, c.gr)
		}
	}
	if len(g.Series) != len(f.Series) || len(f.Series) != 20 {
		t.Fatalf("series: graph %d points, fleet %d; want 20 each", len(g.Series), len(f.Series))
	}
	for i, p := range f.Series {
		q := g.Series[i]
		if q.Service != "server" || p.T != q.T || p.Starts != q.Starts || p.Successes != q.Successes || p.Decided != q.Decided ||
			p.Retries != q.Retries || p.Timeouts != q.Timeouts || p.Conflicts != q.Conflicts || p.InProgress != q.InProgress {
			t.Errorf("second %d: fleet %+v, graph %+v", p.T, p, q)
		}
	}
}

// json's params are each graph as a scenario file's graph section: written
// back into a file, the graph runs with the same figures (pushback and its
// honouring included).
func TestGraphParamsRunAgain(t *testing.T) {
	flags := []string{"-replicates", "2", "-seed", "3"}
	for _, tt := range []struct{ preset, run string }{{"mesh-default-retries", "app_off"}, {"retry-one-layer", "pushback"}} {
		got := graphRun(t, append([]string{"-preset", tt.preset, "-duration", "30s"}, flags...)...)
		i := slices.IndexFunc(got.Params, func(p map[string]any) bool { return p["name"] == tt.run })
		if i < 0 {
			t.Fatalf("%s: no params for %s", tt.preset, tt.run)
		}
		file := filepath.Join(t.TempDir(), "again.yaml")
		data, err := yaml.Marshal(map[string]any{"graph": got.Params[i]})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		again := graphRun(t, append([]string{"-scenario", file}, flags...)...)
		var want []graphJSONRow
		for _, r := range got.Rows {
			if r.Run == tt.run {
				want = append(want, r)
			}
		}
		if !reflect.DeepEqual(again.Rows, want) {
			t.Errorf("the params of %s, run again:\n%+v\nwant\n%+v", tt.run, again.Rows, want)
		}
	}
}

// Bad input is refused before any work, exit 2, with the file's line and
// the field's path in the file.
func TestGraphBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	head := "graph:\n  entries: [{to: a}]\n  services:\n"
	var deep strings.Builder
	for i := range 9 {
		deep.WriteString("    - name: s" + string(rune('0'+i)) + "\n")
		if i < 8 {
			deep.WriteString("      calls: [{to: s" + string(rune('0'+i+1)) + "}]\n")
		}
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"cycle", []string{"-scenario", write("cycle.yaml", head+"    - name: a\n      calls: [{to: b}]\n    - name: b\n      calls:\n        - to: a\n")},
			"cycle.yaml:8: graph.services[1].calls[0].to: a cycle of calls: a -> b -> a"},
		{"unknown service", []string{"-scenario", write("unknown.yaml", head+"    - name: a\n      calls: [{to: c}]\n")},
			`unknown.yaml:5: graph.services[0].calls[0].to: unknown service "c" (the services are a)`},
		{"unreachable", []string{"-scenario", write("unreachable.yaml", head+"    - name: a\n    - name: b\n")},
			"unreachable.yaml:5: graph.services[1]: no entry reaches it (entries go to a)"},
		{"fan-out", []string{"-scenario", write("fanout.yaml", head+"    - name: a\n      calls: ["+strings.Repeat("{to: b}, ", 16)+"{to: b}]\n    - name: b\n")},
			"fanout.yaml:5: graph.services[0].calls: 17 calls; at most 16 a service"},
		{"depth", []string{"-scenario", write("deep.yaml", "graph:\n  entries: [{to: s0}]\n  services:\n"+deep.String())},
			"deep.yaml:2: graph.entries[0].to: a request entering at s0 goes through a chain of 9 services; at most 8"},
		{"cost", []string{"-scenario", write("cost.yaml", "graph:\n  duration: 1h\n  entries: [{to: a, load: {rate: 1000}, client: {attempts: 100}}]\n"+
			"  services:\n    - name: a\n      calls: [{to: b, client: {attempts: 100}}]\n    - name: b\n      calls:\n        - to: c\n          client: {attempts: 100}\n    - name: c\n")},
			"cost.yaml:3: graph.entries[0].client.attempts: 10 replicates of up to 3.66e+12 calls in all"},
		{"a bad value", []string{"-scenario", write("bad.yaml", head+"    - name: a\n      server: {kind: queue, capacity: 0}\n")},
			"bad.yaml:5: graph.services[0].server.capacity: 0 is not a whole number from 1 to 1e+06"},
		{"a fleet section", []string{"-scenario", write("fleet.yaml", "fleet: {policy: aws}\n")},
			"fleet.yaml:1: graph: missing; retrysim graph reads the services and their calls from the graph section"},
		{"neither", nil, "want -scenario FILE (a graph section) or -preset NAME"},
		{"both", []string{"-preset", "aws-five-deep", "-scenario", "x.yaml"}, "-preset: a preset is its own graphs; drop -preset or -scenario"},
		{"a file's duration", []string{"-scenario", write("dur.yaml", "graph:\n  duration: 30s\n  entries: [{to: a}]\n  services: [{name: a}]\n"), "-duration", "10s"},
			"dur.yaml:2: graph.duration sets it; give one or the other"},
		{"unknown preset", []string{"-preset", "nope"}, `unknown preset "nope"`},
		{"a preset's duration", []string{"-preset", "aws-five-deep", "-duration", "2h"}, "-duration: 7200 s is not from 1 s to 3600 s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, append([]string{"graph"}, tt.args...)...)
			if code != 2 || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, errOut, tt.want)
			}
		})
	}
}

// The outputs of one preset in every format are pinned (new with the graph
// command: each change to them is a change of the command's output).
func TestGraphGolden(t *testing.T) {
	for _, format := range []string{"table", "markdown", "csv", "json", "html"} {
		out, errOut, code := retrysim(t, "graph", "-preset", "sre-three-layers", "-replicates", "3", "-duration", "10s", "-format", format, "-width", "100")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		golden(t, "graph-sre."+format, out)
	}
}

// The same flags print the same bytes whatever the workers.
func TestGraphDeterministic(t *testing.T) {
	var outs []string
	for _, w := range []string{"1", "3"} {
		out, errOut, code := retrysim(t, "graph", "-preset", "retry-one-layer", "-replicates", "3", "-duration", "30s", "-workers", w, "-format", "csv")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Error("-workers 1 and 3 print different bytes")
	}
}

// The budget of the SRE book holds each client's retries near 10% of its
// requests: about 1.1 calls a request at the top, and at most 1.1^d at
// depth d, against 4^d without it.
func TestGraphSREBudget(t *testing.T) {
	got := graphRun(t, "-preset", "sre-three-layers", "-replicates", "3")
	for _, r := range got.Rows {
		if r.Run != "budget_10pct" || r.Depth == 0 {
			continue
		}
		if lim := math.Pow(1.1, float64(r.Depth)); r.Amplification > lim || r.Amplification < 1 {
			t.Errorf("%s at depth %d: %v calls a request; want from 1 to 1.1^%d = %.4f", r.Service, r.Depth, r.Amplification, r.Depth, lim)
		}
	}
}

// -series writes a row a run a service a second, -plot a picture, beside
// the table on stdout.
func TestGraphSeriesAndPlot(t *testing.T) {
	dir := t.TempDir()
	series, plot := filepath.Join(dir, "s.csv"), filepath.Join(dir, "p.png")
	_, errOut, code := retrysim(t, "graph", "-preset", "aws-five-deep", "-replicates", "2", "-duration", "4s", "-series", series, "-plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(series)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if want := "run,service,t,calls,starts,successes,retries_decided,retries_sent,timeouts,conflicts,in_progress"; lines[0] != want {
		t.Errorf("series header %q; want %q", lines[0], want)
	}
	if n := len(lines) - 1; n != 2*5*4 { // 2 runs x 5 services x 4 s
		t.Errorf("%d series rows; want 40", n)
	}
	pic, err := os.ReadFile(plot)
	if err != nil || !strings.HasPrefix(string(pic), "\x89PNG") {
		t.Errorf("-plot wrote no PNG: %v", err)
	}
}

// The graph command measures no recovery and prints every preset alike:
// its help says neither that a spike's end starts a recovery nor how a
// preset is "printed as" another's (the fleet command's words for its own
// presets). The fleet's key keeps its recovery.
func TestGraphHelpSaysWhatItDoes(t *testing.T) {
	out, errOut, code := retrysim(t, "graph", "-help")
	out = unwrapHelp(out)
	if code != 0 || strings.Contains(out+errOut, "printed as") {
		t.Errorf("retrysim graph -help: exit %d, says %q: want 0 and no \"printed as\"\n%s", code, "printed as", out+errOut)
	}
	for _, name := range []string{"sre-three-layers", "aws-five-deep", "retry-one-layer", "mesh-default-retries"} {
		if !strings.Contains(out, "  "+name) {
			t.Errorf("retrysim graph -help does not list %s", name)
		}
	}
	help, _, _ := retrysim(t, "help", "scenario")
	for _, tc := range []struct{ key, want string }{
		{"graph.entries[].load.to", "The spike or ramp ends at this time.\n"},
		{"fleet.to", "The spike or ramp ends at this time; recovery is measured from it.\n"},
	} {
		_, after, ok := strings.Cut(help, "\n  "+tc.key+"\n")
		if next, _, _ := strings.Cut(after, "\n\n"); !ok || !strings.HasSuffix(next+"\n", tc.want) {
			t.Errorf("help scenario: %s says\n%s\nwant it to end %q", tc.key, next, tc.want)
		}
	}
}

// Errors point at the right thing (issue 34): -duration over a file that
// sets no graph.duration sets it (it said "graph.duration sets it" of a
// file that set none), as retrysim fleet takes a flag its file leaves out;
// workers that are no queue are refused at their file's line, in English.
func TestScenarioErrorsPointAtTheFile(t *testing.T) {
	dir := t.TempDir()
	noDuration := filepath.Join(dir, "nodur.yaml")
	if err := os.WriteFile(noDuration, []byte("graph:\n  entries: [{to: a}]\n  services: [{name: a}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := retrysim(t, "graph", "-scenario", noDuration, "-duration", "5s", "-replicates", "1")
	if want := "retrysim graph: scenario file " + noDuration + ", 5s, "; code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("graph -duration 5s over a file with no duration: exit %d (%s), %.100q; want %q", code, errOut, out, want)
	}
	independent := filepath.Join(dir, "independent.yaml")
	if err := os.WriteFile(independent, []byte("graph:\n  entries:\n    - to: w\n  services:\n    - name: w\n      server: {kind: independent}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = retrysim(t, "workers", "-scenario", independent)
	want := "retrysim: -scenario " + independent + ":6: graph.services[0].server.kind: the workers (w, where the first entry sends its jobs) are an independent server; want a queue server, whose workers take the jobs\n"
	if code != 2 || errOut != want {
		t.Errorf("workers on an independent server: exit %d, %q; want 2 and %q", code, errOut, want)
	}
}
