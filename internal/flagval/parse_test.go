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
