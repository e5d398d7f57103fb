package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestREADMETranscripts runs every "$ go run ./cmd/retrysim ..." example in
// the README that shows its output, so the documentation cannot drift. A
// command followed at once by another, as the shards before their merge, is
// run too, and must print nothing and succeed. They run in a scratch
// directory that holds the repository's examples/, as at the root, so that
// the files they write stay out of the repository.
func TestREADMETranscripts(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	const prompt = "    $ go run ./cmd/retrysim"
	found := 0
	for i := 0; i < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], prompt)
		if !ok {
			continue
		}
		args := shellWords(t, cmd)
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], prompt) {
			if out, errOut, code := retrysim(t, args...); code != 0 || out+errOut != "" {
				t.Errorf("README: retrysim%s: exit %d, printed %q; want a silent success before the next command", cmd, code, out+errOut)
			}
			continue
		}
		var want []string
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "    "); i++ {
			want = append(want, strings.TrimPrefix(lines[i], "    "))
		}
		if len(want) == 0 {
			continue
		}
		found++
		out, errOut, _ := retrysim(t, args...)
		checkFits(t, "retrysim"+cmd, out)
		if got := strings.TrimRight(out+errOut, "\n"); got != strings.Join(want, "\n") {
			t.Errorf("README: retrysim%s prints\n%s\nwant (README)\n%s", cmd, got, strings.Join(want, "\n"))
		}
	}
	if found < 3 {
		t.Errorf("found %d README transcripts; want at least 3", found)
	}
}

// terminalWidth is the width the README's tables must fit: the table
// format's when stdout is not a terminal.
const terminalWidth = 100

// checkFits fails t when a line of out, what cmd printed, is wider than
// terminalWidth columns, each rune counted as a terminal shows it (box
// drawing one column, East Asian wide characters two).
func checkFits(t *testing.T, cmd, out string) {
	t.Helper()
	cond := &runewidth.Condition{EastAsianWidth: false}
	for i, line := range strings.Split(out, "\n") {
		if w := cond.StringWidth(line); w > terminalWidth {
			t.Errorf("README: %s: line %d is %d columns wide, over %d:\n%s", cmd, i+1, w, terminalWidth, line)
			return
		}
	}
}

// Every command the README shows prints, in the table format, tables and
// titles that fit 100 columns (issue 23: the default table was 146 columns
// wide, fleet -preset retry-policies 588). The transcripts are checked as
// TestREADMETranscripts runs them; this runs every other command, with
// -format table in place of its format and its output files dropped, in
// README order in a scratch directory (so that merge finds its shards).
// Markdown cannot fit a width, csv and json are not tables, html is
// checked by TestPageTablesFit.
func TestREADMETablesFit(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	checked, ran := 0, map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		transcript := strings.HasPrefix(line, "    $ ")
		line = strings.TrimPrefix(strings.TrimPrefix(line, "    "), "$ ")
		cmd, ok := strings.CutPrefix(line, "go run ./cmd/retrysim ")
		if !ok && line == "go run ./cmd/retrysim" {
			cmd, ok = "", true
		}
		if !ok {
			continue
		}
		args := shellWords(t, cmd)
		switch {
		case len(args) > 0 && args[0] == "help":
			continue
		case slices.Contains(args, "-shard"): // raw json for the merge below
			if _, errOut, code := retrysim(t, args...); code != 0 {
				t.Fatalf("README: retrysim %s: exit %d: %s", cmd, code, errOut)
			}
			continue
		case transcript:
			continue // TestREADMETranscripts checks what it prints
		case len(args) > 0 && args[0] == "chain":
			continue // a chain's answers are lines, not a table
		}
		var table []string
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "-format", "-o", "-plot", "-series":
				i++
				continue
			}
			table = append(table, args[i])
		}
		key := strings.Join(table, " ")
		if ran[key] { // -format markdown and -format html of one sweep
			continue
		}
		ran[key] = true
		out, errOut, code := retrysim(t, append(table, "-format", "table")...)
		if code != 0 {
			t.Errorf("README: retrysim %s: exit %d: %s", cmd, code, errOut)
			continue
		}
		checked++
		checkFits(t, "retrysim "+key, out)
	}
	if checked < 8 {
		t.Errorf("checked %d README commands besides the transcripts; want at least 8", checked)
	}
}

// shellWords splits a README command line into arguments as a shell would
// for the quoting the README uses: words separated by spaces, and a word in
// single quotes (a step's name with spaces in -set) kept whole.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("README: unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// TestREADMEDocs re-runs every README command that writes under docs/, into a
// temporary directory, and compares each file it writes with the committed
// one byte for byte (gonum/plot's PNG encoding is deterministic: the same
// sweep gives the same bytes whatever -workers). Every file under docs/ must
// come from such a command, so none can go stale unnoticed, but the pages
// written by hand that handWritten names with the test that checks each.
func TestREADMEDocs(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(line, "    "), "$ ")
		cmd, ok := strings.CutPrefix(line, "go run ./cmd/retrysim")
		if !ok || !strings.Contains(cmd, "docs/") {
			continue
		}
		dir := t.TempDir()
		args := shellWords(t, cmd)
		outputs := map[string]string{} // committed path: where this run writes it
		for i, a := range args {
			if name, ok := strings.CutPrefix(a, "docs/"); ok {
				args[i] = filepath.Join(dir, name)
				outputs[a] = args[i]
			}
		}
		_, errOut, code := retrysim(t, args...)
		if code != 0 {
			t.Fatalf("README: retrysim%s: exit %d: %s", cmd, code, errOut)
		}
		for committed, got := range outputs {
			made[committed] = true
			want, err := os.ReadFile(filepath.Join("../..", committed))
			if err != nil {
				t.Errorf("README: retrysim%s writes %s, which is not committed: %v", cmd, committed, err)
				continue
			}
			if g, err := os.ReadFile(got); err != nil || !bytes.Equal(g, want) {
				t.Errorf("README: retrysim%s no longer writes the committed %s (run it from the repository's root to regenerate)", cmd, committed)
			}
		}
	}
	entries, err := os.ReadDir("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if p := "docs/" + e.Name(); !made[p] && handWritten[p] == "" {
			t.Errorf("%s is committed but no README command writes it", p)
		}
	}
}

// handWritten are the docs/ pages no command writes, each with the test
// that keeps it true.
var handWritten = map[string]string{
	"docs/glossary.md": "TestGlossary in internal/render: an entry for every term an output prints",
}

// examples/signup.yaml says it is the built-in sign-up: the same table, under
// a title that names the file.
func TestSignupExampleIsTheBuiltin(t *testing.T) {
	const file = "../../examples/signup.yaml"
	comment, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const claim = "prints the same table as retrysim, under a title that names the file"
	if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(string(comment), "#", "")), " "), claim) {
		t.Fatalf("%s no longer says it %s; keep this test and the comment together", file, claim)
	}
	builtin, _, _ := retrysim(t, "-width", "0") // the title on one line
	fromFile, errOut, code := retrysim(t, "-scenario", file, "-width", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	bt, brest, _ := strings.Cut(builtin, "\n")
	ft, frest, _ := strings.Cut(fromFile, "\n")
	if frest != brest {
		t.Errorf("-scenario %s prints\n%s\nwant the built-in's\n%s", file, frest, brest)
	}
	if !strings.Contains(ft, "examples/signup.yaml") || ft == bt {
		t.Errorf("-scenario %s title %q; want it to name the file", file, ft)
	}
}
