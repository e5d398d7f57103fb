package main

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// pageText is an html page's text, tags dropped, after checking it is
// well-formed (every page retrysim writes is XML too).
func pageText(t *testing.T, page string) string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.Entity = true, xml.HTMLEntity
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("page is not well-formed: %v", err)
			}
			return b.String()
		}
		if c, ok := tok.(xml.CharData); ok {
			b.Write(c)
			b.WriteString(" ")
		}
	}
}

// TestTunePage: the closed-form search's page states the answer (the
// fewest attempts whose closed form 1-(1-0.05^a)^10 is at most 1e-4),
// every candidate's row with its status, and the shaded region's bound
// (failed_rate above 0.0001), which its picture draws as a line and names
// in its legend; its markdown holds the same answer and rows.
func TestTunePage(t *testing.T) {
	want := 0
	for a := 5; a >= 2; a-- {
		if attemptsFail(0.05, a) <= 1e-4 {
			want = a
		}
	}
	args := []string{"tune", "-p-fail", "0.05", "-lost-reply", "0", "-strategies", "step-samekey", "-search", "attempts=2:5:4",
		"-minimize", "attempts", "-require", "failed_rate<=1e-4"}
	page, stderr, code := retrysim(t, append(args, "-format", "html")...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0", code, stderr)
	}
	text := strings.Join(strings.Fields(pageText(t, page)), " ")
	for _, s := range []string{
		fmt.Sprintf("retrysim tune table: Best: attempts=%d (minimize attempts), meeting every requirement", want),
		"picture shades failed_rate above 0.0001, where it fails",
		"above 0.0001: ruled out", // the picture's legend
	} {
		if !strings.Contains(text, s) {
			t.Errorf("page's text lacks %q:\n%s", s, text)
		}
	}
	for a := 2; a <= 5; a++ {
		status := map[bool]string{true: "fails", false: "beaten"}[attemptsFail(0.05, a) > 1e-4]
		if a == want {
			status = "best"
		}
		if a == 3 {
			status += " (current)"
		}
		row := regexp.MustCompile(fmt.Sprintf(`<tr><td class="prose">%d</td><td>.*?</td><td class="prose">%s</td>`, a, regexp.QuoteMeta(status)))
		if !row.MatchString(page) {
			t.Errorf("no row for attempts=%d with status %q", a, status)
		}
	}
	if n := strings.Count(page, "<svg"); n != 1 {
		t.Errorf("%d pictures; want 1, the requirement's", n)
	}
	md, _, code := retrysim(t, append(args, "-format", "markdown")...)
	for _, s := range []string{
		fmt.Sprintf("**retrysim tune table: Best: attempts=%d (minimize attempts), meeting every requirement**", want),
		"| attempts | failed_rate&lt;=0.0001",
		fmt.Sprintf("| %d        | holds ", want),
	} {
		if code != 0 || !strings.Contains(md, s) {
			t.Errorf("markdown (exit %d) lacks %q:\n%s", code, s, md)
		}
	}
}

// TestTunePageBands: with a metric objective the objective's picture
// shades the attempts every candidate there fails, from halfway below the
// first to halfway to the first that meets failed_rate<=1e-3; by the
// closed form 1-(1-0.45^a)^10 those are 9 to 11 (1.5e-3 at 11, 6.9e-4 at
// 12) of 9 to 13, so 8.5 to 11.5.
func TestTunePageBands(t *testing.T) {
	lo, hi := 0.0, 0.0
	for a := 9; a <= 13; a++ {
		if attemptsFail(0.45, a) > 1e-3 {
			if lo == 0 {
				lo = float64(a) - 0.5
			}
			hi = float64(a) + 0.5
		}
	}
	page, stderr, code := retrysim(t, "tune", "-p-fail", "0.45", "-lost-reply", "0", "-strategies", "step-samekey", "-search", "attempts=9:13:5",
		"-minimize", "step-samekey:calls_per_job", "-require", "failed_rate<=1e-3", "-format", "html")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0", code, stderr)
	}
	text := strings.Join(strings.Fields(pageText(t, page)), " ")
	if s := fmt.Sprintf("shades where every candidate fails a requirement: attempts from %g to %g", lo, hi); !strings.Contains(text, s) {
		t.Errorf("page's text lacks %q:\n%s", s, text)
	}
	if n := strings.Count(page, "<svg"); n != 2 {
		t.Errorf("%d pictures; want 2, the objective's and the requirement's", n)
	}
}
