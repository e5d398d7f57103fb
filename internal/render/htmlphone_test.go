package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
)

// TestPagePhone is issue 35 item 4, the style's part (the pages were looked
// at in headless Chromium at 1280 and 390 px; see docs/outputs.md): on a
// phone the parameters' list stayed in two columns and a long address ran
// over the next, and each inline picture shrank to the screen's width, its
// text to about 4 px. Below 700 px the list is one column, a long word
// breaks anywhere, and a picture keeps 600 px (its text about three
// quarters of its size) and scrolls sideways in its frame; no width is
// fixed but for those bounds.
func TestPagePhone(t *testing.T) {
	phone := regexp.MustCompile(`@media \(max-width: 700px\) \{([^}]*\}[^}]*\}[^}]*\})\s*\}`).FindStringSubmatch(pageStyle)
	if phone == nil {
		t.Fatalf("the style has no @media (max-width: 700px) block:\n%s", pageStyle)
	}
	for _, want := range []string{"ul.params { columns: 1; }", "figure svg { min-width: 600px; }"} {
		if !strings.Contains(phone[1], want) {
			t.Errorf("the phone's style has no %q:\n%s", want, phone[1])
		}
	}
	for _, want := range []string{"overflow-wrap: anywhere", "figure { margin: 1.5em 0; overflow-x: auto; }"} {
		if !strings.Contains(pageStyle, want) {
			t.Errorf("the style has no %q", want)
		}
	}
	// a width in px is only a bound (max-width, min-width), never fixed
	for _, m := range regexp.MustCompile(`([a-z-]*)width: *[0-9.]+px`).FindAllStringSubmatch(pageStyle, -1) {
		if m[1] != "max-" && m[1] != "min-" {
			t.Errorf("the style fixes a width: %q", m[0])
		}
	}
}

// TestPageTerms is issue 35 item 4: a page sent its reader to
// docs/glossary.md, which a shared page does not have. Each page holds,
// under Terms, the glossary's entry of every column its tables use, in
// the glossary's words, and names no docs/ file.
func TestPageTerms(t *testing.T) {
	var page bytes.Buffer
	r := workersTwoRuns()
	r.Rows = []fleetdata.WorkersRow{{Run: "a"}, {Run: "b"}}
	if err := r.html(&page); err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, page.Bytes())
	if strings.Contains(page.String(), "docs/") {
		t.Error("the page names a docs/ file, which a shared page does not have")
	}
	if p.elements["dl"] != 1 || p.elements["dt"] == 0 {
		t.Fatalf("want one <dl> of terms; the page has %d, with %d <dt>", p.elements["dl"], p.elements["dt"])
	}
	entries := map[string]glossaryEntry{}
	for _, e := range glossary() {
		entries[strings.ToLower(e.term)] = e
	}
	defined := 0
	for _, h := range workersColumns.header() {
		e, ok := entries[strings.ToLower(h)]
		if !ok {
			continue
		}
		defined++
		if !strings.Contains(page.String(), "<dt>"+e.term+"</dt>") {
			t.Errorf("the page does not define %q, a column of its table", e.term)
		}
	}
	if defined != p.elements["dt"] || defined < 10 {
		t.Errorf("%d terms defined; want the %d of the table's %d columns the glossary has (at least 10)", p.elements["dt"], defined, len(workersColumns.header()))
	}
	lag := entries["lost work"].paragraphs[0]
	if !strings.Contains(p.text, strings.ReplaceAll(lag, "`", "")) {
		t.Errorf("the page does not hold the glossary's text for Lost work, %q", lag)
	}
}

// TestWorkersPageSaysThePreset is issue 35 item 4: the workers page said
// neither which preset ran nor its source, as the fleet's and the graph's
// do; it says both, what the preset runs, and each run's graph.
func TestWorkersPageSaysThePreset(t *testing.T) {
	r := workersTwoRuns()
	r.Preset = fleetpreset.Preset[fleet.Workers]{Name: "test-preset", Source: "a book, p. 12", About: "Runs a and\nb.", Duration: time.Minute}
	var page bytes.Buffer
	if err := r.html(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<li>model: test-preset</li>", "<li>source: a book, p. 12</li>", "<li>runs: Runs a and b.</li>", "<li>a: ", "<li>b: "} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page has no %q", want)
		}
	}
}
