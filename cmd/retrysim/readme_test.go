package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// TestREADMETranscripts runs every "$ go run ./cmd/retrysim ..." example in
// the README and its hand-written pages under docs/ that shows its output, so
// the documentation cannot drift. A command followed at once by another, as
// the shards before their merge, is run too, and must print nothing and
// succeed. They run in one scratch directory that holds the repository's
// examples/, as at the root, so that the files they write stay out of the
// repository. A transcript shown twice (a page and the README) runs once.
func TestREADMETranscripts(t *testing.T) {
	docs := readDocs(t)
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	const prompt = "    $ go run ./cmd/retrysim"
	found := 0
	printed := map[string]string{} // a command shown with its output: what it printed
	for _, page := range docs.pages {
		lines := strings.Split(page.text, "\n")
		for i := 0; i < len(lines); i++ {
			cmd, ok := strings.CutPrefix(lines[i], prompt)
			if !ok {
				continue
			}
			args := shellWords(t, cmd)
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], prompt) {
				if out, errOut, code := docRun(t, args...); code != 0 || out+errOut != "" {
					t.Errorf("%s: retrysim%s: exit %d, printed %q; want a silent success before the next command", page.path, cmd, code, out+errOut)
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
			got, ok := printed[cmd]
			if !ok {
				out, errOut, _ := docRun(t, args...)
				checkFits(t, page.path+": retrysim"+cmd, out)
				got = strings.TrimRight(out+errOut, "\n")
				printed[cmd] = got
			}
			if got != strings.Join(want, "\n") {
				t.Errorf("%s: retrysim%s prints\n%s\nwant (%s)\n%s", page.path, cmd, got, page.path, strings.Join(want, "\n"))
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d transcripts; want at least 3", found)
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

// Every command the README and its pages show prints, in the table format, tables and
// titles that fit 100 columns (issue 23: the default table was 146 columns
// wide, fleet -preset retry-policies 588). The transcripts are checked as
// TestREADMETranscripts runs them; this runs every other command, with
// -format table in place of its format and its output files dropped, in
// the order of the README and its pages in a scratch directory (so that merge finds its shards).
// Markdown cannot fit a width, csv and json are not tables, html is
// checked by TestPageTablesFit.
func TestREADMETablesFit(t *testing.T) {
	docs := readDocs(t)
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
	var lines []string
	for _, page := range docs.pages {
		lines = append(lines, strings.Split(page.text, "\n")...)
	}
	for _, line := range lines {
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
		out, errOut, code := docRun(t, append(table, "-format", "table")...)
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

// docRuns share the simulations of the commands the README and its pages
// show among the tests that run them (a transcript, its table's width, the
// file it writes, its html page): a command of a kind that shards runs
// once as its only shard (-shard 0/1), its outputs' flags left out, and
// each run of it is merge of that shard with its outputs' flags, which
// prints what the run prints (TestEveryKindMerges holds it). The shards are
// kept by the command's other flags in dir, which TestMain removes.
var docRuns struct {
	sync.Mutex
	dir    string
	shards map[string]docShard
}

// docShard is a command's shard file and what its run wrote on stderr.
type docShard struct{ path, stderr string }

// docRun is retrysim(t, args...), the simulation shared through docRuns
// where the command's kind shards; a command that cannot run so (help, a
// shard, a merge, a refusal) runs as it is.
func docRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if len(args) == 0 || slices.Contains(args, "-shard") || slices.Contains(args, "-help") {
		return retrysim(t, args...)
	}
	k, ok := shardKinds[args[0]]
	if !ok {
		return retrysim(t, args...)
	}
	run, own := args[:1:1], []string{"merge"}
	for i := 1; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || !slices.Contains(k.MergeFlags, name) {
			run = append(run, args[i])
			continue
		}
		own = append(own, args[i])
		if !hasValue && !slices.Contains([]string{"log-y", "linear-y", "own-scales", "ci"}, name) && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	key := strings.Join(run, "\x00")
	docRuns.Lock()
	defer docRuns.Unlock()
	sh, ok := docRuns.shards[key]
	if !ok {
		if docRuns.dir == "" {
			dir, err := os.MkdirTemp("", "retrysim-doc-runs")
			if err != nil {
				t.Fatal(err)
			}
			docRuns.dir, docRuns.shards = dir, map[string]docShard{}
		}
		sh.path = filepath.Join(docRuns.dir, fmt.Sprintf("%d.json", len(docRuns.shards)))
		var code int
		if _, sh.stderr, code = retrysim(t, append(run, "-shard", "0/1", "-o", sh.path)...); code != 0 {
			return retrysim(t, args...)
		}
		docRuns.shards[key] = sh
	}
	out, errOut, code := retrysim(t, append(own, sh.path)...)
	if code != 0 {
		return retrysim(t, args...)
	}
	return out, sh.stderr + errOut, code
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

// TestREADMEDocs re-runs every command in the README and its pages that
// writes under docs/, into a temporary directory, and compares each file it
// writes with the committed one byte for byte (gonum/plot's PNG encoding is
// deterministic: the same sweep gives the same bytes whatever -workers). A
// command shown twice runs once. Every file under docs/ must come from such a
// command or be a hand-written page the README links to, so none can go stale
// unnoticed.
func TestREADMEDocs(t *testing.T) {
	docs := readDocs(t)
	made := map[string]bool{}
	ran := map[string]bool{}
	for _, page := range docs.pages {
		for _, c := range docs.commands[page.path] {
			if ran[c.line] {
				continue
			}
			ran[c.line] = true
			dir := t.TempDir()
			args := shellWords(t, c.line)
			outputs := map[string]string{} // committed path: where this run writes it
			for i, a := range args {
				if name, ok := strings.CutPrefix(a, "docs/"); ok {
					args[i] = filepath.Join(dir, name)
					outputs[a] = args[i]
				}
			}
			_, errOut, code := docRun(t, args...)
			if code != 0 {
				t.Fatalf("%s: retrysim%s: exit %d: %s", page.path, c.line, code, errOut)
			}
			for committed, got := range outputs {
				made[committed] = true
				want, err := os.ReadFile(filepath.Join("../..", committed))
				if err != nil {
					t.Errorf("%s: retrysim%s writes %s, which is not committed: %v", page.path, c.line, committed, err)
					continue
				}
				if g, err := os.ReadFile(got); err != nil || !bytes.Equal(g, want) {
					t.Errorf("%s: retrysim%s no longer writes the committed %s (run it from the repository's root to regenerate)", page.path, c.line, committed)
				}
			}
		}
	}
	linked := map[string]bool{}
	for _, l := range links(docs.pages[0]) {
		linked[l.file] = true
	}
	entries, err := os.ReadDir("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := "docs/" + e.Name()
		switch {
		case made[p]:
		case docs.isPage[p] && linked[p]:
		case docs.isPage[p]:
			t.Errorf("%s is a hand-written page (no command writes it) but README.md does not link to it", p)
		default:
			t.Errorf("%s is committed but no command in README.md or its pages writes it", p)
		}
	}
}

// TestDocLinks holds every relative link and image of the README and its
// pages to a file that exists and, with an anchor, to a heading of that file,
// so that moving a section cannot break a link.
func TestDocLinks(t *testing.T) {
	docs := readDocs(t)
	checked := 0
	for _, page := range docs.pages {
		for _, l := range links(page) {
			checked++
			text, err := os.ReadFile(filepath.Join("../..", l.file))
			if err != nil {
				if info, serr := os.Stat(filepath.Join("../..", l.file)); serr == nil && info.IsDir() && l.anchor == "" {
					continue
				}
				t.Errorf("%s: link %q: %v", page.path, l.target, err)
				continue
			}
			if l.anchor != "" && !headingAnchors(string(text))[l.anchor] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", page.path, l.target, l.file, l.anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links; want at least 20 (is the link pattern still right?)", checked)
	}
}

// docPage is README.md or a hand-written page under docs/: its path from the
// repository's root and its text.
type docPage struct {
	path, text string
}

// docCommand is a command line ("go run ./cmd/retrysim" left out) that
// writes a file under docs/.
type docCommand struct {
	line string
}

// docSet is the README and its hand-written pages, with the commands in
// each that write under docs/.
type docSet struct {
	pages    []docPage // README.md first, then docs/*.md by name
	isPage   map[string]bool
	commands map[string][]docCommand // by page path
}

// readDocs reads README.md and every .md under docs/. A file under docs/ that
// a command in README.md or in another .md under docs/ writes is a generated
// output (docs/scenario.md, the sweeps' and presets' tables); every other .md
// there is a hand-written page, whose transcripts, commands and links are
// checked as the README's are.
func readDocs(t *testing.T) docSet {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	all := []docPage{{"README.md", string(readme)}}
	entries, err := os.ReadDir("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		text, err := os.ReadFile(filepath.Join("../../docs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, docPage{"docs/" + e.Name(), string(text)})
	}
	set := docSet{isPage: map[string]bool{}, commands: map[string][]docCommand{}}
	written := map[string]bool{}
	for _, p := range all {
		for _, line := range strings.Split(p.text, "\n") {
			line = strings.TrimPrefix(strings.TrimPrefix(line, "    "), "$ ")
			cmd, ok := strings.CutPrefix(line, "go run ./cmd/retrysim ")
			if !ok || !strings.Contains(cmd, "docs/") {
				continue
			}
			set.commands[p.path] = append(set.commands[p.path], docCommand{" " + cmd})
			for _, a := range strings.Fields(cmd) {
				if strings.HasPrefix(a, "docs/") {
					written[a] = true
				}
			}
		}
	}
	for _, p := range all {
		if p.path == "README.md" || !written[p.path] {
			set.pages = append(set.pages, p)
			set.isPage[p.path] = true
		}
	}
	return set
}

// docLink is a relative link of a page: as written, and the file (a path from
// the repository's root) and anchor it names.
type docLink struct {
	target, file, anchor string
}

var (
	// codeSpan is inline code, which may hold brackets that are no link.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// mdLink is a link or an image: [text](target) or ![alt](target).
	mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
)

// links returns a page's relative links, those to web addresses left out.
func links(p docPage) []docLink {
	var out []docLink
	for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(p.text, ""), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		if file == "" {
			file = p.path
		} else {
			file = path.Clean(path.Join(path.Dir(p.path), file))
		}
		out = append(out, docLink{target, file, anchor})
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a markdown file's headings:
// the heading lowercased, its punctuation dropped but for - and _, spaces
// made -, and a repeated one suffixed -1, -2, ...
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
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
	builtin, _, _ := retrysim(t, "-width", "0") // each title on one line
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
