package flagval

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
)

// RegisterSettings declares a flag for each of the library's settings
// (api.Settings), at its default, named by FlagOf: -p-fail, -lost-reply,
// and the delivery model's, any of which turns the model on.
func RegisterSettings(fs *flag.FlagSet) {
	for _, s := range api.Settings() {
		fs.Var(SettingVar(s), FlagOf(s.Name), s.Usage)
	}
}

// GivenSettings are the flags set on fs that give one of the library's
// settings (api.Settings, queue.ttl as -ttl), as settings, and as a report
// names what overrides a scenario file: "-p-fail 0.05, -store lease".
func GivenSettings(fs *flag.FlagSet) ([]api.Setting, string) {
	set := map[string]*flag.Flag{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = f })
	var settings []api.Setting
	var text []string
	for _, s := range api.Settings() {
		if f := set[FlagOf(s.Name)]; f != nil {
			settings = append(settings, api.Setting{Name: s.Name, Value: f.Value.(flag.Getter).Get()})
			text = append(text, "-"+f.Name+" "+f.Value.String())
		}
	}
	return settings, strings.Join(text, ", ")
}

// LibraryError turns the library's refusal of a setting into the flag's: a
// api.FieldError names the setting (or its Fields, sweep's axes, joined by
// " x "; a parameter by name given with -set), a delivery.FieldError a field
// of the queue.
func LibraryError(err error) error {
	var fe *api.FieldError
	var de *delivery.FieldError
	switch {
	case errors.As(err, &fe):
		flags := slices.Clone(fe.Fields)
		if flags == nil {
			flags = []string{fe.Field}
		}
		for i, f := range flags {
			switch {
			case f == "generator":
				flags[i] = "-rng"
			case f == "axes":
				flags[i] = "-set"
			case strings.ContainsAny(f, "[."): // steps[STEP].FIELD, queue.FIELD
				flags[i] = "-set " + f
			default:
				flags[i] = "-" + FlagOf(f)
			}
		}
		return Usage(fmt.Errorf("%s: %s", strings.Join(flags, " x "), fe.Msg))
	case errors.As(err, &de):
		return Usage(fmt.Errorf("-%s: %s", FlagOf("queue."+de.Field), de.Msg))
	}
	return err
}

// FlagOf is the flag that gives the library's setting called name:
// queue.backoff.base is -backoff-base, p_fail -p-fail.
func FlagOf(name string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.TrimPrefix(name, "queue."))
}
