package retrysim_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
)

// TestShardsFromFilesAndMemory merges the four shards of one run, two held
// in memory as RunShard returned them and two written to files and read
// back (ReadShard), with the zero Merger and with the experiment's:
// the report is Run's. A shard held in memory carries what only its
// experiment knows (the noun, the watched steps' labels), which its file
// does not, and the two were once refused as "different runs". A shard
// given again, from its file after it was added from memory, is "given
// twice", not a shard of another run.
func TestShardsFromFilesAndMemory(t *testing.T) {
	q := delivery.Defaults()
	q.Store = delivery.Claim
	queued := article(t, 200_000, "")
	queued.Scenario.Steps[1].Latency = provider.Latency{Median: 20e6, P99: 200e6}
	queued.Scenario.Watched = append(queued.Scenario.Watched, provider.Watch{Step: 0, Label: "Users saved twice"})
	queued.Delivery = &q
	for _, tc := range []struct {
		name string
		e    retrysim.Experiment
	}{{"sign-up", article(t, 300_000, "")}, {"own scenario, two watched steps, delivery model", queued}} {
		for _, own := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, experiment's merger %t", tc.name, own), func(t *testing.T) {
				want, err := retrysim.Run(context.Background(), tc.e)
				if err != nil {
					t.Fatal(err)
				}
				m := &retrysim.Merger{}
				if own {
					m = tc.e.Merger()
				}
				dir := t.TempDir()
				file := func(i int) string { return filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)) }
				for _, i := range []int{2, 1, 0, 3} {
					sh, err := retrysim.RunShard(context.Background(), tc.e, i, 4)
					if err != nil {
						t.Fatal(err)
					}
					var b bytes.Buffer
					if err := retrysim.WriteShard(&b, retrysim.ShardOf(sh)); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file(i), b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					if i%2 == 0 {
						err = m.Add(fmt.Sprint("memory ", i), retrysim.ShardOf(sh))
					} else {
						err = addFile(m, file(i))
					}
					if err != nil {
						t.Fatalf("shard %d/4: %v", i, err)
					}
				}
				err = addFile(m, file(2))
				if wantErr := "shard 2/4 is given twice: memory 2 and " + file(2); err == nil || err.Error() != wantErr {
					t.Errorf("adding shard 2/4 again from its file = %v; want %q", err, wantErr)
				}
				got, err := m.Report()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("merged report differs from Run's:\n got %+v\nwant %+v", got, want)
				}
			})
		}
	}
}

// TestShardOfAnotherRunFromFile still refuses, as of another run, a shard
// whose file differs from the one in memory in what the file carries.
func TestShardOfAnotherRunFromFile(t *testing.T) {
	e := article(t, 100_000, "")
	sh0, err := retrysim.RunShard(context.Background(), e, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	e.Seed = 2
	sh1, err := retrysim.RunShard(context.Background(), e, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := retrysim.WriteShard(&b, retrysim.ShardOf(sh1)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shard-1.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var m retrysim.Merger
	if err := m.Add("memory 0", retrysim.ShardOf(sh0)); err != nil {
		t.Fatal(err)
	}
	err = addFile(&m, path)
	if want := "memory 0 and " + path + " are shards of different runs: seed is 1 in one and 2 in the other"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("addFile = %v; want %q", err, want)
	}
}

// ReadShard refuses, as it reads the file, a model whose steps or queue the
// models' declarations do not take (a mistyped, missing or unknown setting),
// naming its path, rather than leaving it for merge to find.
func TestReadShardChecksItsModel(t *testing.T) {
	q := delivery.Defaults()
	e := article(t, 1000, "")
	e.Delivery = &q
	sh, err := retrysim.RunShard(context.Background(), e, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := retrysim.WriteShard(&b, retrysim.ShardOf(sh)); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	const step = `"p_fail": 0.01,`
	head, model, ok := strings.Cut(good, `"model":`)
	if !ok || !strings.Contains(model, step) {
		t.Fatalf("the shard has no step p_fail to edit:\n%s", good)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, from, to, want string }{
		{"as written", "", "", ""},
		{"mistyped", step, `"p_fail": "0.01",`, "model.steps[0].p_fail"},
		{"unknown", step, `"p_fail": 0.01, "p_fial": 1,`, "model.steps[0].p_fial"},
		{"missing", step, ``, "model.steps[0].p_fail"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		text := good
		if tc.from != "" {
			text = head + `"model":` + strings.Replace(model, tc.from, tc.to, 1)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := retrysim.ReadShard(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: ReadShard = %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: ReadShard = %v; want an error naming %s", tc.name, err, tc.want)
		}
	}
}

// addFile reads the shard file at path (ReadShard) and adds it to m under
// its path, as MergeFiles does.
func addFile(m *retrysim.Merger, path string) error {
	sh, err := retrysim.ReadShard(path)
	if err != nil {
		return err
	}
	return m.Add(path, sh)
}
