package retrysim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/strategy"
)

// A setting of the queue is one field and one declaration, in the queue's
// table (decl.Settings[delivery.Config]; see TestNewSettingOfEachKind), and what reads
// settings by name sees the new one with nothing else written: Settings lists it with its help and default, the command
// declares its flag (and help) from it, the flag's value reaches the queue
// through Override, -set sweeps it (ParseSet), and Unread refuses it in the
// job model; a scenario file's queue section takes its key, bounded by its
// kind, and refuses it where Unread does, with the file and line; and the
// scenario file's reference (scenario.Keys, retrysim help scenario) lists
// the key with its example, documented by the setting. A run of the
// delivery model echoes it in its json (-format json) and in its shard
// file's parameters, and writes it in the shard's model (in nanoseconds),
// which merge reads back, refusing a file without it, and a shard of the
// run at another value as another run's. The new setting here is
// redelivery_after, a duration.
func TestAddedQueueSetting(t *testing.T) {
	const name, usage = "queue.redelivery_after", "an unacked message comes back after this `duration`"
	i := slices.IndexFunc(jobapi.Settings(), func(s jobapi.SettingDef) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("Settings() does not list %s", name)
	}
	if def := jobapi.Settings()[i]; def.Usage != usage || def.Default != time.Duration(0) || !def.Delivery {
		t.Errorf("Settings()[%s] = %+v; want its usage, the queue's default 0s, read by the delivery model", name, def)
	}

	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flagval.RegisterSettings(fs)
	if f := fs.Lookup("redelivery-after"); f == nil || f.Usage != usage || f.DefValue != "0s" {
		t.Fatalf("flag -redelivery-after = %+v; want it declared with its usage, at 0s", f)
	}
	var help bytes.Buffer
	fs.SetOutput(&help)
	fs.PrintDefaults()
	if !strings.Contains(help.String(), "-redelivery-after duration\n    \t"+strings.ReplaceAll(usage, "`", "")) {
		t.Errorf("the flags' help does not describe -redelivery-after:\n%s", help.String())
	}

	if err := fs.Parse([]string{"-redelivery-after", "45s"}); err != nil {
		t.Fatal(err)
	}
	q := delivery.Defaults()
	_, got, err := retrysim.Override(retrysim.DefaultScenario(), &q, flagval.GivenSettings(fs, true)...)
	if err != nil || got.RedeliveryAfter != 45*time.Second {
		t.Fatalf("-redelivery-after 45s through Override = %+v, %v; want RedeliveryAfter 45s", got, err)
	}

	p, values, err := retrysim.ParseSet(name+"=10s,20s", retrysim.DefaultScenario(), &q)
	if err != nil || p.Name != name || !slices.Equal(values, []float64{10, 20}) {
		t.Errorf("ParseSet(%s=10s,20s) = %v, %v, %v; want the parameter and 10, 20 seconds", name, p.Name, values, err)
	}

	e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Jobs: 10}
	if why := jobapi.Unread(e)[name]; why != jobapi.UnreadInJobModel {
		t.Errorf("Unread()[%s] in the job model = %q; want %q", name, why, jobapi.UnreadInJobModel)
	}

	const file = "steps: [{name: a}]\nwatched: a\nqueue:\n  redelivery_after: 45s\n  store: claim\n"
	l, err := scenario.Parse("s.yaml", []byte(file))
	if err != nil || l.Queue == nil || l.Queue.RedeliveryAfter != 45*time.Second || l.Queue.Store != delivery.Claim {
		t.Fatalf("a file with queue.redelivery_after: 45s = %+v, %v; want a claim store and RedeliveryAfter 45s", l.Queue, err)
	}
	const refused = "s.yaml:4: queue.redelivery_after: " + jobapi.UnreadInJobModel
	if err := l.CheckRead(func(s string) string { return jobapi.Unread(e)[s] }); err == nil || err.Error() != refused {
		t.Errorf("CheckRead in the job model = %v; want %s", err, refused)
	}
	const negative = "s.yaml:4: queue.redelivery_after: -1s is negative"
	if _, err := scenario.Parse("s.yaml", []byte(strings.Replace(file, "45s", "-1s", 1))); err == nil || err.Error() != negative {
		t.Errorf("a file with queue.redelivery_after: -1s = %v; want %s", err, negative)
	}

	keys := scenario.Keys()
	k := slices.IndexFunc(keys, func(k scenario.Key) bool { return k.Path == name })
	if k < 0 || keys[k].Setting != name || keys[k].Example != "45s" || keys[k].ReadBy != scenario.ReadByDelivery {
		t.Errorf("scenario.Keys() does not list %s, documented by its setting, with its example 45s", name)
	}

	checkShardAndEcho(t, q)
}

// checkShardAndEcho runs the delivery model with the setting
// redelivery_after at 45s in two shards, and
// checks that the shard files, the merged report's json and the merge
// see it.
func checkShardAndEcho(t *testing.T, q delivery.Config) {
	dir := t.TempDir()
	shard := func(name string, after time.Duration, index int) string {
		q := q
		q.RedeliveryAfter = after
		e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Jobs: 200, Delivery: &q}
		sh, err := e.Shard(context.Background(), index, 2)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := retrysim.WriteShard(&b, sh); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := shard("a.json", 45*time.Second, 0), shard("b.json", 45*time.Second, 1)
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Delivery map[string]any
		Model    struct{ Queue map[string]any }
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if got := file.Delivery["redelivery_after"]; got != "45s" {
		t.Errorf("the shard file's delivery.redelivery_after = %v; want 45s", got)
	}
	if got := file.Model.Queue["redelivery_after_ns"]; got != 45e9 {
		t.Errorf("the shard file's model.queue.redelivery_after_ns = %v; want 45000000000", got)
	}
	rep, err := retrysim.MergeFiles(a, b)
	if err != nil {
		t.Fatalf("MergeFiles(a, b) = %v", err)
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var echo struct{ Delivery map[string]any }
	if err := json.Unmarshal(out, &echo); err != nil || echo.Delivery["redelivery_after"] != "45s" {
		t.Errorf("the merged report's json echoes delivery.redelivery_after %v (%v); want 45s", echo.Delivery["redelivery_after"], err)
	}

	without := filepath.Join(dir, "without.json")
	if err := os.WriteFile(without, bytes.Replace(data, []byte(`"redelivery_after_ns": 45000000000,`), nil, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := retrysim.MergeFiles(without, b); err == nil || !strings.Contains(err.Error(), "model.queue.redelivery_after_ns: missing") {
		t.Errorf("MergeFiles of a shard without redelivery_after_ns = %v; want it refused as missing", err)
	}
	other := shard("other.json", 20*time.Second, 1)
	const different = "are shards of different runs: delivery.redelivery_after is \"45s\" in one and \"20s\" in the other"
	if _, err := retrysim.MergeFiles(a, other); err == nil || !strings.Contains(err.Error(), different) {
		t.Errorf("MergeFiles of shards at 45s and 20s = %v; want %s", err, different)
	}
}
