package flagval

import (
	"errors"
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
