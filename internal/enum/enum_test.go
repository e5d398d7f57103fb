package enum_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/retrysim/retrysim/internal/enum"
)

type colour int

var colours = enum.New[colour]("colour", "red", "green", "blue")

func (c colour) String() string                { return colours.String(c) }
func (c colour) MarshalText() ([]byte, error)  { return colours.MarshalText(c) }
func (c *colour) UnmarshalText(b []byte) error { return colours.UnmarshalText(b, c) }

// An enumeration parses and prints its names, round-trips through JSON by
// name, and refuses a value out of range wherever it meets one.
func TestEnum(t *testing.T) {
	for i, name := range enum.Names[colour]() {
		c, err := colours.Parse(name)
		if err != nil || c != colour(i) || c.String() != name || !colours.Valid(c) {
			t.Errorf("Parse(%q) = %v, %v; want %d, printed %q", name, c, err, i, name)
		}
	}
	if _, err := colours.Parse("mauve"); err == nil || err.Error() != `unknown colour "mauve" (want one of red, green, blue)` {
		t.Errorf("Parse(mauve) = %v", err)
	}
	for _, c := range []colour{-1, 3, 42} {
		if colours.Valid(c) {
			t.Errorf("Valid(%d) = true", c)
		}
		if got, want := c.String(), fmt.Sprintf("colour(%d)", int(c)); got != want {
			t.Errorf("String(%d) = %q; want %q", c, got, want)
		}
		if err := colours.Check(c); err == nil || err.Error() != fmt.Sprintf("%d is not a colour (want one of red, green, blue)", int(c)) {
			t.Errorf("Check(%d) = %v", c, err)
		}
		if _, err := json.Marshal(c); err == nil {
			t.Errorf("json.Marshal(%d) succeeded", c)
		}
	}
	b, err := json.Marshal(map[string]colour{"sky": 2})
	if err != nil || string(b) != `{"sky":"blue"}` {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
	var back map[string]colour
	if err := json.Unmarshal(b, &back); err != nil || back["sky"] != 2 {
		t.Errorf("json.Unmarshal(%s) = %v, %v", b, back, err)
	}
	if err := json.Unmarshal([]byte(`"mauve"`), new(colour)); err == nil {
		t.Error(`json.Unmarshal("mauve") succeeded`)
	}
	names := enum.Names[colour]()
	names[0] = "changed"
	if colours.String(0) != "red" {
		t.Error("Names returned the enumeration's own slice")
	}
}

// Names, Parse and Check read an enumeration by its type's text methods
// alone, with the Enum's own names and errors.
func TestByTextMethods(t *testing.T) {
	if got := enum.Names[colour](); !slices.Equal(got, []string{"red", "green", "blue"}) {
		t.Errorf("Names = %q; want red, green, blue", got)
	}
	if c, err := enum.Parse[colour]("blue"); err != nil || c != 2 {
		t.Errorf("Parse(blue) = %v, %v; want 2", c, err)
	}
	if _, err := enum.Parse[colour]("mauve"); err == nil || err.Error() != `unknown colour "mauve" (want one of red, green, blue)` {
		t.Errorf("Parse(mauve) = %v", err)
	}
	if err := enum.Check(colour(1)); err != nil {
		t.Errorf("Check(1) = %v", err)
	}
	if err := enum.Check(colour(3)); err == nil || err.Error() != "3 is not a colour (want one of red, green, blue)" {
		t.Errorf("Check(3) = %v", err)
	}
}
