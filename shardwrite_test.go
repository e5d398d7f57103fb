package retrysim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// WriteShard writes what the command's -shard always wrote (indented json
// and a newline), which ReadShard reads back to the same bytes; a Merger
// adds the files up to Run's counters, and so does MergeFiles.
func TestWriteShardReadsBack(t *testing.T) {
	st, _ := strategy.Parse("step-samekey", 3)
	e := retrysim.Experiment{Scenario: provider.Signup(0.05, 0.02), Strategies: []strategy.Strategy{st}, Jobs: 5000, Seed: 3}
	var m retrysim.Merger
	var paths []string
	for i := range 2 {
		sh, err := retrysim.RunShard(context.Background(), e, i, 2)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := retrysim.WriteShard(&buf, retrysim.ShardOf(sh)); err != nil {
			t.Fatal(err)
		}
		want, _ := json.MarshalIndent(sh, "", "  ")
		if !bytes.Equal(buf.Bytes(), append(want, '\n')) {
			t.Errorf("WriteShard wrote\n%s\nwant\n%s", buf.Bytes(), want)
		}
		path := filepath.Join(t.TempDir(), "shard.json")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := retrysim.ReadShard(path)
		var again bytes.Buffer
		if err == nil {
			err = retrysim.WriteShard(&again, back)
		}
		if err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
			t.Errorf("ReadShard then WriteShard = %v:\n%s\nwant\n%s", err, again.Bytes(), buf.Bytes())
		}
		if err := addFile(&m, path); err != nil {
			t.Errorf("addFile: %v", err)
		}
		paths = append(paths, path)
	}
	rep, err := m.Report()
	run, _ := retrysim.Run(context.Background(), e)
	if err != nil || (*rep.Rows[0].Stats()) != (*run.Rows[0].Stats()) {
		t.Errorf("merged %+v, %v; Run %+v", rep.Rows, err, run.Rows)
	}
	if rep, err := retrysim.MergeFiles(paths...); err != nil || (*rep.Rows[0].Stats()) != (*run.Rows[0].Stats()) {
		t.Errorf("MergeFiles = %+v, %v; Run %+v", rep.Rows, err, run.Rows)
	}
	if _, err := retrysim.MergeFiles(paths[0]); err == nil {
		t.Errorf("MergeFiles of one shard of two: no error")
	}
}
