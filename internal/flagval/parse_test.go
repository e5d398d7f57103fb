package flagval

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Refuse names the first set flag (in name order) that has a reason, as a
// usage error; a flag left at its default is never refused, whatever why says.
func TestRefuse(t *testing.T) {
	fs := NewFlagSet("t")
	fs.Bool("a", false, "")
	fs.Bool("b", false, "")
	fs.Bool("c", false, "")
	fs.Bool("d", false, "")
	if err := fs.Parse([]string{"-d", "-b", "-c"}); err != nil {
		t.Fatal(err)
	}
	why := map[string]string{"a": "never set", "c": "c's reason", "d": "d's reason"}
	err := Refuse(fs, func(n string) string { return why[n] })
	if err == nil || err.Error() != "-c: c's reason" || !errors.As(err, new(UsageError)) {
		t.Errorf("Refuse = %v; want the usage error -c: c's reason", err)
	}
	if err := Refuse(fs, func(n string) string { return why[n+"x"] }); err != nil {
		t.Errorf("Refuse with no reasons = %v; want nil", err)
	}
}

// A flag given twice is refused, in either spelling, naming it, and the
// first value stays; a Repeated flag takes every value, in order.
func TestFlagGivenTwice(t *testing.T) {
	for _, args := range [][]string{{"-n", "1", "-n", "2"}, {"-n=1", "--n", "2"}, {"-b", "-b"}} {
		fs := NewFlagSet("t")
		n := Bounded{V: 0, Lo: 0, Hi: 9}
		fs.Var(&n, "n", "")
		fs.Bool("b", false, "")
		err := ParseFlags(fs, args, "", nil)
		want := "-" + args[0][1:2] + ": given twice; give it once"
		var ue UsageError
		if !errors.As(err, &ue) || err.Error() != want {
			t.Errorf("%v: %v; want the usage error %q", args, err, want)
		}
		if args[0] != "-b" && n.V != 1 {
			t.Errorf("%v: -n is %d; want the first value, 1", args, n.V)
		}
	}
	fs := NewFlagSet("t")
	var got []string
	fs.Var(Repeated(func(s string) error { got = append(got, s); return nil }), "set", "")
	if err := ParseFlags(fs, []string{"-set", "a", "--set=b", "-set", "c"}, "", nil); err != nil || len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Errorf("-set a -set b -set c: %v, %q; want a, b, c", err, got)
	}
}

// -help wraps at 80 columns when stdout is not a terminal, at spaces, a
// word longer than the line alone on its line, and groups list the flags
// under their headings in their order, the rest by name under the last.
func TestHelpWrapsAndGroups(t *testing.T) {
	fs := NewFlagSet("x")
	fs.String("f", "", "aaa bbb ccc\ndddddddddd e")
	var one bytes.Buffer
	printFlag(&one, fs.Lookup("f"), usageIndent+7) // 7 columns after the indent, the usage's own break kept
	if got, want := one.String(), "  -f string\n    \taaa bbb\n    \tccc\n    \tdddddddddd\n    \te\n"; got != want {
		t.Errorf("printFlag = %q; want %q", got, want)
	}
	fs = NewFlagSet("x")
	for _, name := range []string{"zeta", "alpha", "mid", "beta"} {
		fs.String(name, "", strings.Repeat("word ", 30)+name)
	}
	var b bytes.Buffer
	if err := Parse(fs, []string{"-help"}, "Flags:\n", &b, Group{Title: "First", Flags: []string{"zeta", "alpha"}}, Group{Title: "Rest"}); err == nil {
		t.Fatal("-help: no HelpError")
	}
	var heads []string
	help, _, _ := strings.Cut(b.String(), "Exit status")
	for _, line := range strings.Split(help, "\n") {
		if len(line) > 80 {
			t.Errorf("line of %d columns: %q", len(line), line)
		}
		if line != "" && line[0] != ' ' {
			heads = append(heads, line)
		}
		if strings.HasPrefix(line, "  -") {
			heads = append(heads, line)
		}
	}
	want := []string{"Flags:", "First:", "  -zeta value", "  -alpha value", "Rest:", "  -beta value", "  -mid value"}
	if !slices.Equal(heads, want) {
		t.Errorf("-help lists %q; want %q", heads, want)
	}
}

// TestArgs holds how a command line is read a word at a time, as fs.Parse
// would: a known flag's value in the next word, a boolean alone, an unknown
// flag alone, and Interspersed moving the files after "--".
func TestArgs(t *testing.T) {
	fs := NewFlagSet("t")
	fs.String("o", "", "")
	fs.Bool("ci", false, "")
	args := []string{"a.json", "-o", "x", "-ci", "--x=1", "-u", "v", "-", "--", "-o", "b"}
	got := Args(fs, args)
	want := []Arg{{At: 0, N: 1}, {Name: "o", Value: "x", At: 1, N: 2, Flag: true}, {Name: "ci", Value: "true", At: 3, N: 1, Flag: true},
		{Name: "x", Value: "1", At: 4, N: 1, Flag: true}, {Name: "u", At: 5, N: 1, Flag: true}, {At: 6, N: 1}, {At: 7, N: 1}, {At: 8, N: 1},
		{Name: "o", Value: "b", At: 9, N: 2, Flag: true}}
	if !slices.Equal(got, want) {
		t.Errorf("Args = %+v\nwant %+v", got, want)
	}
	if got, want := Interspersed(fs, args), []string{"-o", "x", "-ci", "--x=1", "-u", "--", "a.json", "v", "-", "-o", "b"}; !slices.Equal(got, want) {
		t.Errorf("Interspersed = %q, want %q", got, want)
	}
	if got, want := Interspersed(fs, []string{"a", "-o"}), []string{"-o"}; !slices.Equal(got, want) {
		t.Errorf("Interspersed with -o last = %q, want %q", got, want)
	}
}
