package flagval

import (
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/render"
)

// Output declares -format and -o with the command's notes after their
// usage, starts at the doc's first format and stdout, and writes where the
// command reads them.
func TestOutput(t *testing.T) {
	var o Output
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.Register(fs, render.RaceDoc, " (F)", "; not an input")
	if o.Format.R.Name() != "table" || o.Out.Path != "" || o.Out.Flag != "o" {
		t.Errorf("defaults = %+v", o)
	}
	if u := fs.Lookup("format").Usage; !strings.HasSuffix(u, "json (F)") {
		t.Errorf("-format usage %q does not end with the race formats and the note", u)
	}
	if u, want := fs.Lookup("o").Usage, "write the output to `file` instead of stdout: a regular file is replaced atomically (keeping its mode), a symbolic link's target likewise, a device or FIFO is written in place; not an input"; u != want {
		t.Errorf("-o usage %q; want %q", u, want)
	}
	if err := fs.Parse([]string{"-format", "json", "-o", "out.json"}); err != nil {
		t.Fatal(err)
	}
	if o.Format.R.Name() != "json" || o.Out.Path != "out.json" {
		t.Errorf("after -format json -o out.json: %+v", o)
	}
}

// -width not given is 100 for output that is not a terminal (a buffer, a
// pipe, a file given by -o), whatever stdout is; given, it is what was
// given, 0 included; out of range, it is refused.
func TestWidth(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var o Output
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.Register(fs, render.ReportDoc, "", "")
	if d := fs.Lookup("width").DefValue; d != "the terminal's width, else 100" {
		t.Errorf("-width default shown as %q", d)
	}
	for _, stdout := range []io.Writer{io.Discard, w} {
		for _, toStdout := range []bool{true, false} {
			if got := o.Width.Of(stdout, toStdout); got != 100 {
				t.Errorf("-width not given, stdout %T, to stdout %v: %d; want 100", stdout, toStdout, got)
			}
		}
	}
	if err := fs.Parse([]string{"-width", "0"}); err != nil {
		t.Fatal(err)
	}
	if got := o.Width.Of(io.Discard, true); got != 0 {
		t.Errorf("-width 0: %d; want 0, no limit", got)
	}
	for _, bad := range []string{"-1", "100001", "wide"} {
		var v Width
		if err := v.Set(bad); err == nil || !strings.Contains(err.Error(), "from 0 (no limit) to 100000") {
			t.Errorf("-width %s: error %v; want the range", bad, err)
		}
	}
}
