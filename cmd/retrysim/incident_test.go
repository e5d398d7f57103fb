package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/incident"
)

// TestIncidentCommand drives retrysim incident: the list names every
// incident, within 100 columns; json carries the source, the assumptions (each marked assumed)
// and an outcome a run with its Wilson interval; an unknown name, -shard of
// the list, -plot in a shard and two names are refused with one line and
// exit 2.
func TestIncidentCommand(t *testing.T) {
	out, errOut, code := retrysim(t, "incident")
	if code != 0 {
		t.Fatalf("retrysim incident: exit %d, %s", code, errOut)
	}
	for _, name := range []string{"sqs-visibility-payment", "dynamodb-2015-09-20", "google-cloud-2025-06-12", "aws-us-east-1-2025-10-20", "sidekiq-480-retry-herd", "facebook-2010-09-23"} {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("retrysim incident does not list %s:\n%s", name, out)
		}
	}
	checkFits(t, "retrysim incident", out) // its titles ran to 253 columns

	out, errOut, code = retrysim(t, "incident", "google-cloud-2025-06-12", "-replicates", "3", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	var got struct {
		Source struct {
			Organisation, Link, Quote string
		}
		Assumptions []struct {
			Name    string
			Assumed bool
		}
		Outcomes []struct {
			Run                   string
			Fix                   bool
			ReplicatesWithOutcome int64 `json:"replicates_with_outcome"`
			ReplicatesJudged      int64 `json:"replicates_judged"`
		}
		Runs json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if got.Source.Organisation != "Google Cloud" || !strings.Contains(got.Source.Quote, "randomized exponential backoff") ||
		!strings.HasPrefix(got.Source.Link, "https://status.cloud.google.com/") {
		t.Errorf("source = %+v", got.Source)
	}
	if len(got.Assumptions) < 5 {
		t.Errorf("%d assumptions; want the setting's every value assumed", len(got.Assumptions))
	}
	for _, a := range got.Assumptions {
		if !a.Assumed {
			t.Errorf("assumption %q not marked assumed", a.Name)
		}
	}
	if len(got.Outcomes) != 2 || got.Outcomes[0].Fix || !got.Outcomes[1].Fix || got.Outcomes[0].ReplicatesJudged != 3 ||
		got.Outcomes[0].ReplicatesWithOutcome != 3 {
		t.Errorf("outcomes = %+v; want the incident collapsed in 3 of 3, then its fix", got.Outcomes)
	}
	if len(got.Runs) == 0 || got.Runs[0] != '{' {
		t.Errorf("runs = %.80s; want the fleet command's json object", got.Runs)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"incident", "no-such-thing"}, `retrysim: incident: unknown incident "no-such-thing" (want one of sqs-visibility-payment, dynamodb-2015-09-20, google-cloud-2025-06-12, aws-us-east-1-2025-10-20, sidekiq-480-retry-herd, facebook-2010-09-23)`},
		{[]string{"incident", "-shard", "0/2"}, "-shard: the list is not sharded; name the incident to replay"},
		{[]string{"incident", "dynamodb-2015-09-20", "-shard", "0/2", "-plot", "x.png"}, "-plot: a shard draws nothing; give -plot to retrysim merge"},
		{[]string{"incident", "dynamodb-2015-09-20", "-name", "google-cloud-2025-06-12"}, "incident: one incident at a time (got google-cloud-2025-06-12, dynamodb-2015-09-20)"},
		{[]string{"incident", "dynamodb-2015-09-20", "-format", "html"}, `-format: unknown format "html" (want one of table, markdown, csv, json)`},
		{[]string{"incident", "a", "b"}, "incident: one incident at a time (got a, b)"},
	} {
		_, errOut, code := retrysim(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("retrysim %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// TestIncidentScenarioFilesThroughTheCommands runs every incident's
// scenario files through retrysim fleet or workers, as the gallery prints
// the commands (their -replicates made 2), and holds each json row to the
// incident's own row for that run, every field but the run's name.
func TestIncidentScenarioFilesThroughTheCommands(t *testing.T) {
	rows := func(t *testing.T, doc []byte) []map[string]any {
		t.Helper()
		var d struct{ Rows []map[string]any }
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatalf("json: %v", err)
		}
		return d.Rows
	}
	for _, inc := range incident.Gallery() {
		out, errOut, code := retrysim(t, "incident", inc.Name, "-replicates", "2", "-format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d, %s", inc.Name, code, errOut)
		}
		var rep struct{ Runs json.RawMessage }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		want := rows(t, rep.Runs)
		for i, run := range inc.Runs {
			args := []string{string(inc.Kind), "-scenario", "../../" + run.Scenario, "-format", "json"}
			flags := strings.Fields(run.Flags)
			if k := slices.Index(flags, "-replicates"); k >= 0 {
				flags = slices.Delete(flags, k, k+2)
			}
			args = append(append(args, flags...), "-replicates", "2")
			out, errOut, code := retrysim(t, args...)
			if code != 0 {
				t.Fatalf("retrysim %s: exit %d, %s", strings.Join(args, " "), code, errOut)
			}
			got := rows(t, []byte(out))
			if len(got) != 1 || len(want) != len(inc.Runs) {
				t.Fatalf("%s: %d rows from the file, %d from the incident", run.Scenario, len(got), len(want))
			}
			for k, v := range want[i] {
				if k != "run" && fmt.Sprint(got[0][k]) != fmt.Sprint(v) {
					t.Errorf("%s: %s = %v; the incident's %s has %v", run.Scenario, k, got[0][k], run.Name, v)
				}
			}
		}
	}
}

// TestIncidentShardsHostile: merge refuses, with one line and exit 2, an
// incident's shard merged with another incident's, a shard whose header
// claims more replicates than its settings make, and items a run of the
// incident's settings never makes (each replicate checked as the fleet and
// workers kinds check theirs: fleet.Config.CheckReplicate,
// fleet.Graph.CheckReplicate).
func TestIncidentShardsHostile(t *testing.T) {
	dynamo := []string{"incident", "dynamodb-2015-09-20", "-replicates", "2"}
	sqs := []string{"incident", "sqs-visibility-payment", "-replicates", "2"}
	for _, c := range []struct {
		name   string
		args   []string
		tamper func(t *testing.T, files []string)
		want   string
	}{
		{"another incident's shard", dynamo, func(t *testing.T, files []string) {
			other := writeTwoShards(t, t.TempDir(), "incident", "google-cloud-2025-06-12", "-replicates", "2")
			files[1] = other[1]
		}, `is a shard of another run than`},
		{"more replicates than the settings make", dynamo, func(t *testing.T, files []string) {
			for _, f := range files {
				editEnvelope(t, f, func(m map[string]any) { m["items"] = 9 })
			}
		}, "its settings make 2 replicates, not 9"},
		{"a fleet replicate out of range", dynamo, func(t *testing.T, files []string) {
			editItems(t, files[1], func(it [][]fleetdata.Replicate) { it[0][1].Series = nil })
		}, "run 1: series: 0 seconds"},
		{"a workers replicate out of range", sqs, func(t *testing.T, files []string) {
			editItems(t, files[0], func(it [][]fleetdata.GraphReplicate) { it[0][2].Edges[0].JobDuplicates = -1 })
		}, "run 2: edges[0]: a negative count"},
		{"a run missing", sqs, func(t *testing.T, files []string) {
			editItems(t, files[0], func(it [][]fleetdata.GraphReplicate) { it[0] = it[0][:2] })
		}, "2 runs; the settings make 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := writeTwoShards(t, t.TempDir(), c.args...)
			c.tamper(t, files)
			out, errOut, code := retrysim(t, "merge", files[0], files[1])
			if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("merge: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, errOut, c.want)
			}
		})
	}
}

// -plot naming -o's file is refused before any replay, as every other
// kind refuses it, not written over the report.
func TestIncidentPlotIsNotTheOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.svg")
	stdout, stderr, code := retrysim(t, "incident", "sqs-visibility-payment", "-replicates", "1", "-o", path, "-plot", path)
	if want := "retrysim: -plot: " + path + " is also -o's file; give each its own\n"; code != 2 || stdout != "" || stderr != want {
		t.Errorf("code %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s written: %v (stderr %q, code %d)", path, err, stderr, code)
	}
}
