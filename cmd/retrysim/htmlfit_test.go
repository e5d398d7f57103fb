package main

import (
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// glyphEm is an upper bound of a character's advance, in ems, in the widest
// common system-ui fallback, DejaVu Sans (Book; bold is bounded by
// boldFactor): its digits are 0.636 em, its lower case at most 0.635 but m
// (0.974) and w (0.818), its capitals at most 0.787 but M (0.863) and W
// (0.989), % 0.950, ± 0.838; Arial, Helvetica, Segoe UI and Roboto are
// narrower. Anything else counts as 1 em.
func glyphEm(r rune) float64 {
	switch {
	case r >= '0' && r <= '9', r >= 'a' && r <= 'z' && r != 'm' && r != 'w':
		return 0.64
	case r >= 'A' && r <= 'Z' && r != 'M' && r != 'W':
		return 0.79
	case strings.ContainsRune(" .,:;'|!-/()[]", r):
		return 0.40
	case r == '±':
		return 0.84
	}
	return 1
}

// boldFactor bounds how much wider DejaVu Sans Bold is than Book (its
// digits are 0.696 em, 9% more; m 1.042, 7% more).
const boldFactor = 1.12

// pageCSS are the figures of the page's own style the fit depends on.
type pageCSS struct {
	column            float64 // body's max-width, px: the column a table must fit
	tableEm           float64 // table's font size, in ems of the body's 16 px
	padEm             float64 // a cell's left and right padding, in ems of the table's font
	proseMinEm        float64 // td.prose's min-width, in ems of the table's font
	nowrapSpans       bool    // a number's spans do not break inside
	cellBorderPx      float64
	breaksAtUnderline bool
}

// readCSS reads the figures the fit depends on from the page's <style>,
// failing t when one is missing, so that a change of style is measured.
func readCSS(t *testing.T, page string) pageCSS {
	t.Helper()
	find := func(re string) float64 {
		m := regexp.MustCompile(re).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the page's style has no match for %s", re)
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return pageCSS{
		column:            find(`body \{[^}]*max-width: ([0-9.]+)px`),
		tableEm:           find(`\ntable \{[^}]*font-size: ([0-9.]+)em`),
		padEm:             find(`\nth, td \{[^}]*padding: [0-9.]+em ([0-9.]+)em`),
		cellBorderPx:      find(`\nth, td \{[^}]*border: ([0-9.]+)px`),
		proseMinEm:        find(`\ntd\.prose \{[^}]*min-width: ([0-9.]+)em`),
		nowrapSpans:       strings.Contains(page, "td span { white-space: nowrap; }"),
		breaksAtUnderline: strings.Contains(page, "_<wbr/>"),
	}
}

// minTableWidths are, for each table of page, an upper bound of its
// min-content width in px: the width below which the browser would have to
// overflow it. A column is as narrow as its widest unbreakable piece: a
// word of a header (bold) or of a prose cell (at least td.prose's
// min-width), a span of a number cell (which breaks only between spans);
// then its padding and border.
func minTableWidths(t *testing.T, page string, css pageCSS) []float64 {
	t.Helper()
	fontPx := 16 * css.tableEm
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.Entity = true, xml.HTMLEntity
	var widths []float64
	var cols []float64 // the current table's columns' least widths, px
	col := -1
	var cell strings.Builder
	var inCell, bold bool
	var least float64 // the current cell's, px
	piece := func(s string, bolded bool) float64 {
		em := 0.0
		for _, r := range s {
			em += glyphEm(r)
		}
		if bolded {
			em *= boldFactor
		}
		return em * fontPx
	}
	flushWords := func() {
		for _, w := range strings.Fields(cell.String()) {
			least = max(least, piece(w, bold))
		}
		cell.Reset()
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "table":
				cols = nil
			case "tr":
				col = -1
			case "th", "td":
				col++
				inCell, bold, least = true, tok.Name.Local == "th", 0
				for _, a := range tok.Attr {
					if a.Name.Local == "class" && a.Value == "prose" {
						least = css.proseMinEm * fontPx
					}
				}
				cell.Reset()
			case "span":
				cell.Reset()
			case "wbr":
				flushWords() // a break: what came before is a piece
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "span":
				if !css.nowrapSpans {
					t.Fatal("number spans may break inside; the bound assumes they do not")
				}
				least = max(least, piece(strings.TrimSpace(cell.String()), false))
				cell.Reset()
			case "th", "td":
				flushWords()
				for len(cols) <= col {
					cols = append(cols, 0)
				}
				cols[col] = max(cols[col], least)
				inCell = false
			case "table":
				w := 1.0
				for _, c := range cols {
					w += c + 2*css.padEm*fontPx + css.cellBorderPx
				}
				widths = append(widths, w)
			}
		case xml.CharData:
			if inCell {
				cell.Write(tok)
			}
		}
	}
	return widths
}

// Every html page's tables fit the page's 1220 px column at 1280 px, with
// no scrollbar (issue 23: the retry-policies page was 1,700 px wide, its
// table scrolled inside the column): an upper bound of each table's
// min-content width, from the page's own style and a glyph-width bound of
// the widest common sans-serif font, is at most the column. The pictures
// come before the tables, so that a long table (spike-recovery's 120 rows)
// does not push its picture pages down.
func TestPageTablesFit(t *testing.T) {
	for _, args := range [][]string{
		{"-ci", "-expect", "-replicates", "2"},
		{"-scenario", "../../examples/signup-queue.yaml", "-ci", "-jobs", "100000"},
		{"-scenario", "../../examples/checkout.yaml", "-ci", "-expect"},
		{"-preset", "sqlite-check", "-jobs", "1000"},
		{"sweep", "-p-fail", "0:0.05:11"},
		{"sweep", "-p-fail", "0.001,0.005,0.01,0.02,0.05", "-lost-reply", "0,0.005,0.02", "-jobs", "100000"},
		{"fleet", "-preset", "brooker-collapse"},
		{"fleet", "-preset", "brooker-clients"},
		{"fleet", "-preset", "retry-policies", "-replicates", "2", "-duration", "2s"},
		{"fleet", "-preset", "spike-recovery"},
		{"graph", "-preset", "retry-one-layer", "-replicates", "2"},
		{"graph", "-preset", "mesh-default-retries", "-replicates", "2"},
		{"workers", "-preset", "sidekiq-outage", "-replicates", "2"},
		{"tune", "-p-fail", "0.45", "-lost-reply", "0", "-strategies", "step-samekey", "-search", "attempts=9:13:5", "-minimize", "step-samekey:calls_per_job", "-require", "failed_rate<=1e-3"},
	} {
		name := strings.Join(args, " ")
		out, errOut, code := docRun(t, append(args, "-format", "html")...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, errOut)
			continue
		}
		css := readCSS(t, out)
		if css.column+2*16 > 1280-20 { // the body's 1em padding either side, a vertical scrollbar
			t.Fatalf("the page's column is %g px: with its padding and a scrollbar it passes 1280 px", css.column)
		}
		if !css.breaksAtUnderline && strings.Contains(name, "fleet") {
			t.Errorf("%s: no name breaks after an underscore", name)
		}
		for i, w := range minTableWidths(t, out, css) {
			t.Logf("%s: table %d at least %.0f px", name, i+1, w)
			if w > css.column {
				t.Errorf("%s: table %d is at least %.0f px wide; the column is %g px", name, i+1, w, css.column)
			}
		}
		if fig, table := strings.Index(out, "<figure>"), strings.Index(out, "<table>"); fig >= 0 && fig > table {
			t.Errorf("%s: a table comes before the first picture", name)
		}
	}
}
