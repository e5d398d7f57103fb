package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// retrysim runs the command in-process (race, which replaces its process, as
// a process of its own) and returns its stdout, stderr and status.
func retrysim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if runsRace(args) {
		return retrysimProcess(t, args...)
	}
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// golden compares got with testdata/name, writing name.got on a mismatch and
// rewriting the file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("output differs from %s; see %s.got", path, path)
	}
}

// The golden files pin every format. The article-exact ones are checked
// against the article's table independently, by TestArticleRows below.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"article.table", []string{"-rng", "mulberry32", "-width", "0"}},
		{"article.markdown", []string{"-rng", "mulberry32", "-format", "markdown"}},
		{"article.csv", []string{"-rng", "mulberry32", "-format", "csv"}},
		{"article.json", []string{"-rng", "mulberry32", "-format", "json"}},
		{"pcg.table", []string{"-width", "0", "-jobs", "200000", "-p-fail", "0.05", "-lost-reply", "0.02", "-seed", "7"}},
		{"xexp-all.csv", []string{"-rng", "xexp", "-jobs", "50000", "-attempts", "2", "-format", "csv",
			"-strategies", "step-nokey,step-samekey-skip,job-nokey,job-newkey,job-nokey-skip,job-samekey-skip"}},
		{"one-attempt.table", []string{"-width", "0", "-rng", "mulberry32", "-jobs", "1000", "-attempts", "1", "-strategies", "job-samekey"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("retrysim %s: exit %d, stderr %q", strings.Join(tt.args, " "), code, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

// The article's published table, cell by cell, in the table format at no
// width limit (-width 0), as the article prints it.
func TestArticleRows(t *testing.T) {
	out, _, code := retrysim(t, "-rng", "mulberry32", "-width", "0")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := [][]string{
		{"Retry each step, no key", "99.999%", "11", "10.11", "4,971", "4,939"},
		{"Retry each step, new key on every call", "99.999%", "11", "10.11", "4,971", "4,939"},
		{"Retry each step, same key every time", "99.999%", "11", "10.11", "0", "0"},
		{"Retry the whole job, same key", "99.900%", "995", "10.6", "464,233", "0"},
		{"Retry the whole job, same key, skip finished steps", "99.975%", "250", "10.11", "0", "0"},
	}
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, "│")
		if len(cells) != 8 || !strings.Contains(line, "Retry") {
			continue
		}
		var row []string
		for _, c := range cells[1:7] {
			row = append(row, strings.TrimSpace(c))
		}
		rows = append(rows, row)
	}
	if len(rows) != len(want) {
		t.Fatalf("found %d strategy rows in\n%s\nwant %d", len(rows), out, len(want))
	}
	for i := range want {
		if strings.Join(rows[i], " | ") != strings.Join(want[i], " | ") {
			t.Errorf("row %d = %q; want %q", i, rows[i], want[i])
		}
	}
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "1,000,000 sign-ups, 10 steps, each call fails 1% of the time") {
		t.Errorf("title = %q; want it to start like the article's", first)
	}
}

// The json contract: parameters, and rows in the order asked for with the
// integer fields named in the design.
func TestJSONContract(t *testing.T) {
	out, _, code := retrysim(t, "-rng", "mulberry32", "-format", "json", "-jobs", "1e6", "-strategies", "job-samekey-skip,step-nokey")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Jobs     int64   `json:"jobs"`
		PFail    float64 `json:"p_fail"`
		RNG      string  `json:"rng"`
		Seed     uint64  `json:"seed"`
		Attempts int     `json:"attempts"`
		Rows     []struct {
			Strategy       string `json:"strategy"`
			Jobs           int64  `json:"jobs"`
			Failed         int64  `json:"failed"`
			Calls          int64  `json:"calls"`
			RepeatedSteps  int64  `json:"repeated_steps"`
			DuplicateUsers int64  `json:"duplicate_users"`
		} `json:"rows"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 1_000_000 || rep.PFail != 0.01 || rep.RNG != "mulberry32" || rep.Seed != 1 || rep.Attempts != 3 {
		t.Errorf("parameters = %+v", rep)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Strategy != "job-samekey-skip" || rep.Rows[1].Strategy != "step-nokey" {
		t.Fatalf("rows = %+v; want job-samekey-skip then step-nokey", rep.Rows)
	}
	if r := rep.Rows[0]; r.Failed != 250 || r.RepeatedSteps != 0 || r.DuplicateUsers != 0 || r.Jobs != 1_000_000 {
		t.Errorf("job-samekey-skip = %+v; want the article's 250 failed, 0 repeated, 0 duplicates", r)
	}
	if r := rep.Rows[1]; r.Failed != 11 || r.RepeatedSteps != 4971 || r.DuplicateUsers != 4939 {
		t.Errorf("step-nokey = %+v; want the article's 11, 4971, 4939", r)
	}
}

func TestSameBytesWhateverTheWorkers(t *testing.T) {
	args := []string{"-jobs", "300000", "-p-fail", "0.05", "-lost-reply", "0.02", "-seed", "3"}
	want, _, _ := retrysim(t, append(args, "-workers", "1")...)
	for _, w := range []string{"1", "2", "7"} {
		got, errOut, code := retrysim(t, append(args, "-workers", w)...)
		if code != 0 || got != want {
			t.Errorf("-workers %s: exit %d, stderr %q, output differs from -workers 1:\n%s\nwant\n%s", w, code, errOut, got, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string // the one line on stderr must contain this
	}{
		{[]string{"-p-fail", "1.5"}, "-p-fail: 1.5 is not a probability in [0, 1]"},
		{[]string{"-p-fail", "-0.1"}, "-p-fail: -0.1 is not a probability in [0, 1]"},
		{[]string{"-p-fail", "NaN"}, "-p-fail: NaN is not a probability in [0, 1]"},
		{[]string{"-p-fail", "often"}, "-p-fail: want a probability in [0, 1]"},
		{[]string{"-lost-reply", "2"}, "-lost-reply: 2 is not a probability in [0, 1]"},
		{[]string{"-lost-reply", "Inf"}, "-lost-reply: +Inf is not a probability in [0, 1]"},
		{[]string{"-jobs", "0"}, "-jobs: want a whole number from 1 to 1000000000000"},
		{[]string{"-jobs", "-5"}, "-jobs: want a whole number from 1 to"},
		{[]string{"-jobs", "1e13"}, "-jobs: want a whole number from 1 to"},
		{[]string{"-jobs", "9223372036854775808"}, "-jobs: want a whole number from 1 to"},
		{[]string{"-jobs", "2.5"}, "-jobs: want a whole number"},
		{[]string{"-jobs", "lots"}, "-jobs: want a whole number"},
		{[]string{"-attempts", "0"}, "-attempts: want a whole number from 1 to 1000"},
		{[]string{"-attempts", "1001"}, "-attempts: want a whole number from 1 to 1000"},
		{[]string{"-seed", "-1"}, "-seed"},
		{[]string{"-rng", "mt19937"}, `-rng: unknown generator "mt19937" (want one of pcg, mulberry32, xexp)`},
		{[]string{"-strategies", "step-nokey,retry-harder"}, `-strategies: unknown strategy "retry-harder" (want scope-keys or scope-keys-skip`},
		{[]string{"-strategies", ""}, `-strategies: unknown strategy ""`},
		{[]string{"-format", "xml"}, `-format: unknown format "xml" (want one of table, markdown, csv, json, html)`},
		{[]string{"-workers", "0"}, "-workers: want a whole number from 1 to 4096"},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unknown command "extra" (want one of chain, fleet, fleet-map, graph, incident, merge, race, sweep, table, tune, version, workers, or flags alone for table)`},
		{[]string{"-jobs", "5", "extra"}, `unexpected argument "extra"`},
		{[]string{"-replicates", "0"}, "-replicates: want a whole number from 1 to 10000"},
		{[]string{"-o", "/nonexistent-dir/x.txt", "-jobs", "10"}, "-o: directory /nonexistent-dir does not exist"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := retrysim(t, tt.args...)
			if code != 2 {
				t.Errorf("exit status = %d; want 2", code)
			}
			if out != "" {
				t.Errorf("stdout = %q; want nothing", out)
			}
			if !strings.HasPrefix(errOut, "retrysim: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q; want one line starting \"retrysim: \" containing %q", errOut, tt.want)
			}
		})
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	out, errOut, code := retrysim(t, "-help")
	out = unwrapHelp(out)
	if code != 0 || errOut != "" {
		t.Fatalf("-help: exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
	for _, f := range []string{"-jobs", "-p-fail", "-lost-reply", "-attempts", "-seed", "-rng", "-strategies", "-format", "-workers", "deprecated upstream"} {
		if !strings.Contains(out, f) {
			t.Errorf("-help does not mention %s:\n%s", f, out)
		}
	}
}

func TestVersionAndHelpCommands(t *testing.T) {
	for _, args := range [][]string{{"-version"}, {"version"}} {
		out, errOut, code := retrysim(t, args...)
		// A test binary has the module's build info with version "(devel)".
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "retrysim (devel) go1.") {
			t.Errorf("retrysim %v = %q, %q, exit %d; want \"retrysim (devel) go1...\", exit 0", args, out, errOut, code)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "Usage: retrysim [table] [flags]"},
		{[]string{"help", "sweep"}, "-metric"},
	} {
		out, _, code := retrysim(t, tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("retrysim %v: exit %d, stdout lacks %q", tt.args, code, tt.want)
		}
	}
}
