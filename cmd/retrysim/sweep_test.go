package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("%v in\n%s", err, s)
	}
	return recs
}

// Every row of a sweep equals a single run at the same point.
func TestSweepRowsEqualSingleRuns(t *testing.T) {
	out, errOut, code := retrysim(t, "sweep", "-p-fail", "0.001,0.005,0.01,0.02,0.05", "-lost-reply", "0,0.005,0.02", "-jobs", "200000", "-format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := readCSV(t, out)
	if len(rows) != 1+15*5 {
		t.Fatalf("%d csv lines; want a header and 75 rows", len(rows))
	}
	if got := strings.Join(rows[0][:4], ","); got != "p_fail,lost_reply,attempts,strategy" {
		t.Errorf("header starts %q; want p_fail,lost_reply,attempts,strategy", got)
	}
	for i := 1; i < len(rows); i += 5 {
		single, _, code := retrysim(t, "-p-fail", rows[i][0], "-lost-reply", rows[i][1], "-attempts", rows[i][2], "-jobs", "200000", "-format", "csv")
		if code != 0 {
			t.Fatalf("single run at %v: exit %d", rows[i][:3], code)
		}
		want := readCSV(t, single)
		for k := range 5 {
			got := strings.Join(rows[i+k][3:], ",")
			if w := strings.Join(want[1+k], ","); got != w {
				t.Errorf("point %v strategy %d:\nsweep  %s\nsingle %s", rows[i][:3], k, got, w)
			}
		}
	}
}

func TestSweepSameBytesWhateverTheWorkers(t *testing.T) {
	args := []string{"sweep", "-p-fail", "0:0.04:3", "-attempts", "1,3", "-jobs", "70000", "-format", "json"}
	want, _, _ := retrysim(t, append(args, "-workers", "1")...)
	for _, w := range []string{"2", "7"} {
		if got, _, _ := retrysim(t, append(args, "-workers", w)...); got != want {
			t.Errorf("-workers %s gives other bytes than -workers 1", w)
		}
	}
}

func TestSweepPivotGolden(t *testing.T) {
	args := []string{"sweep", "-rng", "mulberry32", "-p-fail", "0.01,0.05", "-lost-reply", "0.005,0.02", "-jobs", "20000", "-metric", "duplicate_rate"}
	out, errOut, code := retrysim(t, append(args, "-ci")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "sweep.table", out)
	md, _, _ := retrysim(t, "sweep", "-rng", "mulberry32", "-attempts", "1:4:4", "-jobs", "20000", "-format", "markdown", "-ci")
	golden(t, "sweep.markdown", md)
	// Without -ci, as the table command, a cell is the value alone.
	plain, _, _ := retrysim(t, args...)
	if lines := strings.Split(plain, "\n"); lines[0] != "Share of jobs whose watched step ran twice or more; mulberry32, seed 1, plain engine" ||
		strings.Contains(plain, "[") || !strings.Contains(lines[4], "│   0.01 │      0.005 │      0.51% │       0.51% │           0% │") {
		t.Errorf("sweep without -ci:\n%s\nwant the values of sweep.table without their intervals", plain)
	}
}

func TestSweepPlot(t *testing.T) {
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "lines.png")
	_, errOut, code := retrysim(t, "sweep", "-p-fail", "0.001,0.01,0.03", "-jobs", "20000", "-plot", pngPath, "-format", "csv", "-o", filepath.Join(dir, "rows.csv"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the plot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 300 {
		t.Errorf("plot is %dx%d pixels; want at least 600x300", b.Dx(), b.Dy())
	}

	svgPath := filepath.Join(dir, "heat.svg")
	_, errOut, code = retrysim(t, "sweep", "-p-fail", "0.001,0.01", "-lost-reply", "0,0.02", "-jobs", "20000", "-plot", svgPath, "-format", "csv", "-o", filepath.Join(dir, "rows2.csv"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Probability that a call fails", "Probability that the watched step", "Retry each step, no key", "Retry the whole job, same key, skip finished steps"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the heat map SVG lacks %q", want)
		}
	}
	// -own-scales and -log-y reach the picture.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-p-fail", "0.001,0.01", "-lost-reply", "0,0.02"}, "colour scale shared by every panel"},
		{[]string{"-p-fail", "0.001,0.01", "-lost-reply", "0,0.02", "-own-scales"}, "own colour scale"},
		{[]string{"-p-fail", "0.01,0.02", "-log-y"}, "log y axis"},
		{[]string{"-p-fail", "0.01,0.02", "-linear-y"}, "linear y axis"},
	} {
		_, errOut, code = retrysim(t, append([]string{"sweep", "-jobs", "20000", "-plot", svgPath, "-o", os.DevNull}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		if svg, err := os.ReadFile(svgPath); err != nil || !bytes.Contains(svg, []byte(tt.want)) {
			t.Errorf("%v: the SVG does not say %q (%v)", tt.args, tt.want, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// -o holds exactly what stdout would have.
func TestOutputFileEqualsStdout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table.txt")
	args := []string{"-jobs", "30000", "-ci"}
	want, _, _ := retrysim(t, args...)
	out, _, code := retrysim(t, append(args, "-o", path)...)
	got, err := os.ReadFile(path)
	if code != 0 || err != nil || out != "" || string(got) != want {
		t.Errorf("-o: exit %d, err %v, stdout %q; file differs from stdout: %v", code, err, out, string(got) != want)
	}
}

func TestSweepBadInput(t *testing.T) {
	forms := "is not a value (0.01), a list (0.001,0.01,0.05) or a range start:stop:count (0:0.02:11)"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p-fail", "0:1"}, `-p-fail: "0:1" ` + forms},
		{[]string{"-lost-reply", "a,b"}, `-lost-reply: "a,b" ` + forms},
		{[]string{"-p-fail", "0:0.1:0"}, `-p-fail: "0:0.1:0": the count must be from 1 to 10000`},
		{[]string{"-p-fail", "0.5,1.5"}, "-p-fail: 1.5 is not a probability in [0, 1]"},
		{[]string{"-attempts", "0,3"}, "-attempts: 0 is not a whole number from 1 to 1000"},
		{[]string{"-jobs", "0"}, "-jobs: 0 is not a whole number from 1 to 1e+12"},
		{[]string{"-metric", "speed"}, `-metric: unknown metric "speed" (want one of succeeded, failed_rate, calls_per_job, repeated_per_job, duplicate_rate, steps[send the welcome email].duplicate_rate)`},
		{[]string{"-plot", "out.gif", "-p-fail", "0,0.1"}, `-plot: "out.gif": want a file name ending in .png or .svg`},
		{[]string{"-plot", "out.png"}, "-plot: a plot needs one or two swept parameters; 0 are swept"},
		{[]string{"-plot", "out.png", "-p-fail", "0,0.1", "-lost-reply", "0,0.1", "-attempts", "1,2"}, "-plot: a plot needs one or two swept parameters; 3 are swept"},
		{[]string{"-log-y", "-p-fail", "0,0.1"}, "-log-y: shapes the picture -plot or -format html draws; give one of them"},
		{[]string{"-plot", "out.png", "-p-fail", "0,0.1", "-log-y", "-linear-y"}, "-linear-y: -log-y asks for the opposite; give one"},
		{[]string{"-plot", "out.png", "-p-fail", "0,0.1", "-lost-reply", "0,0.1", "-linear-y"}, "-linear-y: applies to a line plot (one swept parameter); this sweep has 2"},
		{[]string{"-plot", "out.png", "-p-fail", "0,0.1", "-own-scales"}, "-own-scales: applies to heat maps (two swept parameters); this sweep has 1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := retrysim(t, append([]string{"sweep"}, tt.args...)...)
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and one line containing %q", code, out, errOut, tt.want)
			}
		})
	}
}

func TestSweepHelp(t *testing.T) {
	out, _, code := retrysim(t, "sweep", "-help")
	out = unwrapHelp(out)
	if code != 0 || !strings.Contains(out, "start:stop:count") || !strings.Contains(out, "-metric") || !strings.Contains(out, "-plot") {
		t.Errorf("sweep -help: exit %d,\n%s", code, out)
	}
}

// -format html writes one page whose every data cell names the json row and
// field it shows and holds that row's number for the field exactly (render's
// tests check the page itself): the sweep's, the fleet's, the table
// command's (with the delivery model's by-step table too), a preset's, a
// fleet totals preset's (a field "a/b" is the ratio of the row's two counts),
// spike-recovery's and a worker fleet's.
func TestHTMLPagesMatchJSON(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		fields []string // fields every json row must have a cell for
		plot   bool
	}{
		{[]string{"sweep", "-p-fail", "0.001,0.01", "-jobs", "20000"}, []string{"failed_rate"}, true},
		{[]string{"sweep", "-p-fail", "0.001,0.01", "-attempts", "2,3", "-jobs", "20000"}, []string{"failed_rate"}, true},
		{[]string{"fleet", "-duration", "5s", "-replicates", "2"}, []string{"requests", "succeeded", "amplification"}, true},
		{[]string{"-jobs", "20000", "-ci", "-expect"}, []string{"succeeded", "failed", "calls_per_job", "repeated_steps", "duplicate_users"}, false},
		{[]string{"-model", "delivery", "-jobs", "2000", "-crash", "0.01", "-latency", "20ms"},
			[]string{"failed", "deliveries_per_job", "lost_work", "repeated_step_1", "repeated_step_7", "repeated_step_10"}, false},
		{[]string{"-preset", "sqlite-check", "-jobs", "200"}, []string{"charges_per_job", "lost_work"}, false},
		{[]string{"fleet", "-preset", "brooker-retries", "-replicates", "2", "-duration", "5s"},
			[]string{"succeeded/requests", "calls/requests"}, true},
		{[]string{"fleet", "-preset", "spike-recovery", "-replicates", "1", "-duration", "30s"},
			[]string{"requests", "succeeded", "amplification"}, true},
		{[]string{"workers", "-preset", "sqs-visibility", "-replicates", "2", "-duration", "30s"},
			[]string{"jobs", "completed", "dead", "deliveries", "duplicates", "lost_work", "peak_backlog", "peak_age_seconds"}, true},
	} {
		page, errOut, code := retrysim(t, append(tt.args, "-format", "html")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		js, _, _ := retrysim(t, append(tt.args, "-format", "json")...)
		var out struct{ Rows []map[string]any }
		if err := json.Unmarshal([]byte(js), &out); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{} // "row field"
		d := xml.NewDecoder(strings.NewReader(page))
		for {
			tok, err := d.Token()
			if err != nil {
				if err != io.EOF {
					t.Fatalf("%v: the page does not parse: %v", tt.args, err)
				}
				break
			}
			el, ok := tok.(xml.StartElement)
			if !ok || el.Name.Local != "td" {
				continue
			}
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			if attr["data-field"] == "" {
				continue
			}
			row, err := strconv.Atoi(attr["data-row"])
			if err != nil || row < 0 || row >= len(out.Rows) {
				t.Fatalf("%v: a cell of field %s names row %q; json has %d rows", tt.args, attr["data-field"], attr["data-row"], len(out.Rows))
			}
			field := attr["data-field"]
			want, ok := out.Rows[row][field].(float64)
			if a, b, ratio := strings.Cut(field, "/"); ratio { // a ratio json carries as its two counts
				num, ok1 := out.Rows[row][a].(float64)
				den, ok2 := out.Rows[row][b].(float64)
				want, ok = num/den, ok1 && ok2
			}
			if got := attr["data-value"]; !ok || got != strconv.FormatFloat(want, 'g', -1, 64) {
				t.Errorf("%v: row %d %s holds %s; json %v", tt.args, row, field, got, out.Rows[row][field])
			}
			seen[strconv.Itoa(row)+" "+field] = true
		}
		for i := range out.Rows {
			for _, f := range tt.fields {
				if !seen[strconv.Itoa(i)+" "+f] {
					t.Errorf("%v: no cell shows json row %d's %s", tt.args, i, f)
				}
			}
		}
		if strings.Contains(page, "<svg") != tt.plot {
			t.Errorf("%v: svg %v; want %v", tt.args, strings.Contains(page, "<svg"), tt.plot)
		}
	}
}
