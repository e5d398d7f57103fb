package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/render"
)

// defaultRuns are, for each command, small runs over which every flag of
// its FlagSet is given at its default. A command with flags and no entry
// fails TestEveryFlagAtItsDefault, so that a new command is walked too.
var defaultRuns = map[string][][]string{
	"table": {
		{"-jobs", "3000"},
		{"-jobs", "3000", "-model", "delivery"},
	},
	"sweep": {
		{"-jobs", "2000", "-p-fail", "0.01,0.05"},
		{"-jobs", "2000", "-p-fail", "0.01,0.05", "-model", "delivery"},
	},
	"fleet":     {{"-duration", "3s", "-clients", "20"}},
	"fleet-map": {{"-rates", "10", "-heights", "60", "-lengths", "1s", "-replicates", "2", "-after", "10s", "-from", "1s"}},
	"merge":     {{"SHARD0", "SHARD1"}},
	"graph":     {{"-preset", "aws-five-deep", "-duration", "3s", "-replicates", "2"}},
	"chain":     {{}, {"-split-orbit", "2", "-split-runs", "2", "-split-effort", "5", "-split-horizon", "5s"}},
	"workers":   {{"-preset", "sqs-visibility", "-duration", "1m", "-replicates", "2", "-worker-count", "500"}},
	"incident":  {{}, {"sqs-visibility-payment", "-replicates", "2"}},
	"tune":      {{"-search", "attempts=2:4:3", "-minimize", "attempts", "-require", "failed_rate<=0.05", "-budget", "1e6"}},
}

// wallTime is race's Wall column, the one figure of a run that is not a
// function of its flags.
var wallTime = regexp.MustCompile(`[0-9.]+ s │`)

// atDefaultExceptions are the flags the walk does not give at their
// default, each with why.
var atDefaultExceptions = map[string]string{
	"o":       "an output location: the output moves to the file",
	"series":  "an output location: fleet also writes the time series there",
	"plot":    "an output location: the command also draws there",
	"set":     "repeatable with no default: each use names a parameter and its values",
	"require": "repeatable with no default: each use adds a requirement the run must meet",
	"search":  "repeatable with no default: each use names a setting and its candidates",
	"preset":  "has no default value: naming a preset runs it instead of the flags' run",
	"outage":  "has no default value: naming a window adds an outage",
	"shard":   "has no default value: -shard i/n runs a slice and writes raw json for merge instead of the report",
}

// Naming a flag at its default value never changes a command's output: a
// user who tries -ttl 24h to see whether the TTL matters must get the same
// bytes, not another model, engine or draws (before, -ttl 24h or -backoff
// full-jitter turned the delivery model on). Every flag of every command is
// taken from the command's own FlagSet (as -help lists it), so a new flag is
// walked without a change here.
func TestEveryFlagAtItsDefault(t *testing.T) {
	shards := t.TempDir()
	for i := range 2 {
		path := filepath.Join(shards, "shard"+strconv.Itoa(i)+".json")
		if _, errOut, code := retrysim(t, "-jobs", "3000", "-shard", strconv.Itoa(i)+"/2", "-o", path); code != 0 {
			t.Fatalf("-shard %d/2: exit %d, %s", i, code, errOut)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		if name == "race" {
			continue // retrysim-race's own test walks its flags; here race only runs it
		}
		var help flagval.HelpError
		if err := commands[name].run(context.Background(), []string{"-help"}, io.Discard, io.Discard); !errors.As(err, &help) {
			t.Fatalf("%s -help returned %v; want a flagval.HelpError", name, err)
		}
		runs, ok := defaultRuns[name]
		if !ok {
			if hasFlags(help.Flags) {
				t.Errorf("command %s has no run in defaultRuns: give it a small one", name)
			}
			continue // version takes no flags
		}
		for _, base := range runs {
			base = slices.Clone(base)
			for i, a := range base {
				if a == "SHARD0" || a == "SHARD1" {
					base[i] = filepath.Join(shards, "shard"+a[5:]+".json")
				}
			}
			args := append([]string{name}, base...)
			wantOut, wantErr, wantCode := retrysim(t, args...)
			wantOut = wallTime.ReplaceAllString(wantOut, "wall │")
			if wantCode != 0 {
				t.Fatalf("%q: exit %d, %s", args, wantCode, wantErr)
			}
			help.Flags.VisitAll(func(f *flag.Flag) {
				if _, ok := atDefaultExceptions[f.Name]; ok || slices.Contains(base, "-"+f.Name) {
					return
				}
				if !flagval.Listed(f) {
					return // an old name, refused whatever its value
				}
				value := f.DefValue
				if f.Name == "workers" { // -help's default: GOMAXPROCS, not a number
					value = strconv.Itoa(runtime.GOMAXPROCS(0))
				}
				if f.Name == "width" { // -help's default: the terminal's, and stdout here is none
					value = strconv.Itoa(render.DefaultWidth)
				}
				with := append(slices.Clone(args), "-"+f.Name+"="+value)
				t.Run(name+"/"+f.Name+"="+value, func(t *testing.T) {
					out, errOut, code := retrysim(t, with...)
					out = wallTime.ReplaceAllString(out, "wall │")
					if code != wantCode || errOut != wantErr || out != wantOut {
						t.Errorf("%q: exit %d, stderr %q, stdout\n%s\nwant the run without -%s: exit %d, stderr %q, stdout\n%s",
							with, code, errOut, out, f.Name, wantCode, wantErr, wantOut)
					}
				})
			})
		}
	}
}

// hasFlags reports whether fs declares a flag.
func hasFlags(fs *flag.FlagSet) bool {
	declared := false
	fs.VisitAll(func(*flag.Flag) { declared = true })
	return declared
}

// A flag at its default that the run does not read changes nothing over a
// scenario file either: -lease over the claim store of signup-queue.yaml
// was named in the title as overriding the file.
func TestUnreadFlagAtDefaultOverAFile(t *testing.T) {
	file := "../../examples/signup-queue.yaml"
	plain, _, code := retrysim(t, "-scenario", file, "-jobs", "1000")
	with, errOut, code2 := retrysim(t, "-scenario", file, "-jobs", "1000", "-lease", "30s")
	if code != 0 || code2 != 0 || plain != with {
		t.Errorf("-lease 30s over %s: exit %d (%s), output\n%s\nwant exit 0 and\n%s", file, code2, errOut, with, plain)
	}
}
