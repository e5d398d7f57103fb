package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A step name with a tab was read from a scenario file and written by
// -shard (exit 0), and merge then refused the shard: a long sharded run
// could not be merged (issue 21). The reader now refuses it, with the line,
// and -shard writes nothing.
func TestShardRefusesANameMergeWouldRefuse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	for _, name := range []string{`a\tb`, `a\nb`, `a\e[2Jb`, `a\0b`} {
		src := "steps:\n  - {name: \"" + name + "\"}\nwatched: \"" + name + "\"\n"
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "shard.json")
		_, errOut, code := retrysim(t, "-scenario", file, "-jobs", "100", "-shard", "0/1", "-o", out)
		if code != 2 || !strings.Contains(errOut, "s.yaml:2: steps[0].name: ") || !strings.Contains(errOut, "holds a control character") {
			t.Errorf("-shard with step name %s: exit %d, %q; want exit 2 naming s.yaml:2: steps[0].name", name, code, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("-shard with step name %s wrote %s", name, out)
		}
	}
}

// Every name the scenario reader accepts is written by -shard and read
// back by merge, which prints what the run prints whole; in markdown each
// is one cell, escaped: a | or < in a name neither splits the table nor
// reaches a page as html.
func TestEveryNameWrittenIsReadBack(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "names.yaml")
	long := strings.Repeat("é", 100) // 200 bytes, the most a name may be
	src := `name: "pipes | and <b>tags</b>"
noun: "sign-ups & co"
steps:
  - {name: "a | b", p_fail: 0.1}
  - {name: "<script>alert(1)</script>", p_fail: 0.1, lost_reply: 0.1, keyed: true}
  - {name: "back\\slash \\| café ☕", p_fail: 0.1}
  - {name: "` + long + `", p_fail: 0.1}
watched:
  - {step: "<script>alert(1)</script>", label: "Jobs | twice"}
  - "a | b"
queue: {}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-scenario", file, "-jobs", "2000", "-engine", "plain"}
	for _, format := range []string{"table", "markdown", "json"} {
		want, errOut, code := retrysim(t, append(args, "-format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		paths := writeShards(t, dir, 3, args...)
		got, errOut, code := retrysim(t, append([]string{"merge", "-format", format}, paths...)...)
		if code != 0 || got != want {
			t.Errorf("merge -format %s: exit %d, %q; merged output differs from the run's:\n%s\nwant\n%s", format, code, errOut, got, want)
		}
		if format != "markdown" {
			continue
		}
		if strings.Contains(got, "<script>") || strings.Contains(got, "<b>") {
			t.Errorf("markdown passes html through:\n%s", got)
		}
		for _, cell := range []string{`a \| b`, `&lt;script&gt;alert(1)&lt;/script&gt;`, `back\\slash \\\| café ☕`, "Jobs \\| twice", long} {
			if !strings.Contains(got, "| "+cell+" ") {
				t.Errorf("markdown has no cell %q:\n%s", cell, got)
			}
		}
		if !strings.Contains(got, `**2,000 sign-ups &amp; co, 4 steps from `) {
			t.Errorf("markdown title not escaped:\n%s", got)
		}
		checkMarkdownTables(t, got)
	}
}

// checkMarkdownTables fails when a table row of md has another number of
// cells than its delimiter row: GitHub renders a header of 12 cells over a
// delimiter of 11 as no table at all. A cell boundary is a | not escaped
// by a backslash (itself not escaped).
func checkMarkdownTables(t *testing.T, md string) {
	t.Helper()
	cells := func(line string) int {
		n, escaped := 0, false
		for _, r := range line {
			switch {
			case escaped:
				escaped = false
			case r == '\\':
				escaped = true
			case r == '|':
				n++
			}
		}
		return n
	}
	want := 0
	lines := strings.Split(md, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "|") {
			want = 0
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|:") || strings.HasPrefix(lines[min(i+1, len(lines)-1)], "|-") {
			want = cells(lines[i+1])
		}
		if got := cells(line); got != want {
			t.Errorf("markdown row %q has %d cell borders; its delimiter row %d", line, got, want)
		}
	}
}

// A scenario file's name is no name a reader checked: one holding a
// newline, ESC and U+202E is written escaped in every title (the table's,
// markdown's, html's <title> and <h1>), whole on the title's line, and no
// raw control character reaches the output.
func TestScenarioFileNameEscapedInTitles(t *testing.T) {
	dir := t.TempDir()
	const hostileName = "a\nb\x1b[31m\u202ec.yaml"
	const escaped = `a\nb\x1b[31m\u202ec.yaml`
	for _, tt := range []struct{ cmd, example string }{
		{"workers", "workers-signup.yaml"}, {"graph", "graph-checkout.yaml"}, {"fleet", "fleet-budget.yaml"},
	} {
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", tt.example))
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, tt.cmd)
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(sub, hostileName)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Skip(err) // a file system that refuses the name
		}
		for _, format := range []string{"table", "markdown", "html"} {
			args := []string{tt.cmd, "-scenario", path, "-replicates", "1", "-format", format}
			if tt.cmd == "fleet" {
				args = append(args, "-duration", "5s")
			}
			out, errOut, code := retrysim(t, args...)
			if code != 0 {
				t.Fatalf("%s -format %s: exit %d: %s", tt.cmd, format, code, errOut)
			}
			if strings.ContainsAny(out, "\x1b\u202e") {
				t.Errorf("%s -format %s: a raw ESC or U+202E in the output", tt.cmd, format)
			}
			want := escaped
			if format == "markdown" {
				want = strings.ReplaceAll(escaped, `\`, `\\`)
			}
			lines := strings.Split(out, "\n")
			n := 0
			for _, l := range lines {
				if strings.Contains(l, want) {
					n++
				}
			}
			if min := map[string]int{"table": 1, "markdown": 1, "html": 2}[format]; n < min {
				t.Errorf("%s -format %s: %d lines hold the name escaped whole (%s); want %d or more:\n%.600s", tt.cmd, format, n, want, min, out)
			}
			if format == "html" && !strings.Contains(out, "<title>retrysim "+tt.cmd+": ") {
				t.Errorf("%s -format html: no <title> line", tt.cmd)
			}
		}
	}
}
