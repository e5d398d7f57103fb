// The main module runs this module's tests once as they are and once under
// -race for TestOwnStrategyRace alone; this file's tests, and package report
// with the plotting it imports, are left out of the race detector's build,
// where they would be built for no test.

//go:build !race

package ownjob_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// TestEveryFormatFromGo runs the article's experiment in Go, writes its
// report in every format with package report, and compares each with what
// the retrysim command prints for the same run, built from the same module:
// byte for byte. json.Marshal of the report is the command's json too.
func TestEveryFormatFromGo(t *testing.T) {
	strategies, err := retrysim.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: strategies, Jobs: 20_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []report.Format{report.Table, report.Markdown, report.CSV, report.JSON, report.HTML} {
		r, err := report.NewReport(rep, report.Options{Format: f, Intervals: true})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := r.Report(&got); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "run", "github.com/retrysim/retrysim/cmd/retrysim", "-jobs", "20000", "-ci", "-format", string(f))
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s written from Go differs from the command's:\n got %.400s\nwant %.400s", f, got.Bytes(), want)
		}
		if f == report.JSON {
			marshalled, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(marshalled, '\n'), want) {
				t.Errorf("json.MarshalIndent of the report differs from the command's json:\n got %.400s\nwant %.400s", marshalled, want)
			}
		}
	}
}

// TestFourShardsFilesAndMemory cuts the team's experiment into four shards,
// keeps two in memory and sends two through files (as from other
// machines), and merges them with the experiment's Merger: the report is
// the single run's.
func TestFourShardsFilesAndMemory(t *testing.T) {
	e := experiment(300_000, "")
	whole, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := e.Merger()
	for _, i := range []int{3, 0, 2, 1} {
		sh, err := e.Shard(context.Background(), i, 4)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := m.Add(fmt.Sprint("memory ", i), sh); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var b bytes.Buffer
		if err := retrysim.WriteShard(&b, sh); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := retrysim.ReadShard(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(path, back); err != nil {
			t.Fatal(err)
		}
	}
	merged, err := m.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged, whole) {
		t.Errorf("four shards, two from files, merged differ from the single run:\n merged %+v\n single %+v", merged, whole)
	}
}
