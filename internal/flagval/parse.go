package flagval

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/retrysim/retrysim/internal/tty"
)

// UsageError is bad input, the user's to fix: the commands exit with
// status 2 for it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usage marks err as the user's to fix.
func Usage(err error) error { return UsageError{Err: err} }

// NewFlagSet returns a flag set that reports errors only through parse, so a
// refused value gets one line and -help alone prints the usage.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// exitStatuses ends every command's -help.
const exitStatuses = `
Exit status: 0 when the command did its work (or printed -help), 1 when it
failed or was interrupted (nothing partial is written), 2 for bad usage.
Ctrl-C, SIGTERM or SIGHUP stops a run within a second, writing nothing; a
second one ends the process at once, killed by that signal (a shell shows
128 plus its number: 130 for Ctrl-C).
`

// Parse parses args into fs, refusing arguments that are not flags; -help
// lists the flags under the headings of groups, if any, in their order.
func Parse(fs *flag.FlagSet, args []string, intro string, stdout io.Writer, groups ...Group) error {
	if err := ParseFlags(fs, args, intro, stdout, groups...); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usage(fmt.Errorf("unexpected argument %q (all settings are flags; see -help)", fs.Arg(0)))
	}
	return nil
}

// HelpError is what a command returns for -help: flag.ErrHelp, with the
// flag set the help listed, so that a test can walk a command's flags.
type HelpError struct{ Flags *flag.FlagSet }

func (e HelpError) Error() string { return flag.ErrHelp.Error() }
func (e HelpError) Unwrap() error { return flag.ErrHelp }

// ParseFlags parses args into fs; on -help it prints intro and the flags,
// under groups' headings if any, to stdout and returns a HelpError.
func ParseFlags(fs *flag.FlagSet, args []string, intro string, stdout io.Writer, groups ...Group) error {
	var setErr error
	NameErrors(fs, &setErr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, intro)
			PrintGroups(stdout, fs, groups, helpWidth(stdout))
			fmt.Fprint(stdout, exitStatuses)
			return HelpError{Flags: fs}
		}
		if setErr != nil {
			err = setErr
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag needs an argument: -"); ok {
			if c, ok := fs.Lookup(name).Value.(*named).Value.(*Choice); ok && len(c.Names) > 0 {
				arg, _ := flag.UnquoteUsage(fs.Lookup(name))
				err = fmt.Errorf("-%s needs a %s, one of %s", name, arg, strings.Join(c.Names, ", "))
			}
		}
		return Usage(err)
	}
	return nil
}

// helpWidth is the width -help wraps to: the terminal's when stdout is
// one, and 80 columns otherwise (a pipe, a file, a pager).
func helpWidth(stdout io.Writer) int {
	if f, ok := stdout.(*os.File); ok && tty.IsTerminal(int(f.Fd())) {
		if cols, err := tty.Width(int(f.Fd())); err == nil && cols > usageIndent+20 {
			return cols
		}
	}
	return 80
}

// Arg is one of a command line's arguments read as fs.Parse reads a flag, the
// N words from args[At]: a flag (Flag), by Name, its Value given after = or in
// the word after it ("true" for a boolean flag alone; Missing when fs's flag
// wants one and none follows), or a word that is none ("-", "--", a file).
type Arg struct {
	Name, Value   string
	At, N         int
	Flag, Missing bool
}

// Args are all of args, a word at a time, each flag read as fs.Parse reads it
// (a flag fs knows that takes a value and has no = takes the word after it);
// unlike fs.Parse, Args goes on past "--" and past the first word that is no
// flag, leaving those to its callers.
func Args(fs *flag.FlagSet, args []string) []Arg {
	var out []Arg
	for i := 0; i < len(args); i++ {
		a := Arg{At: i, N: 1}
		if w := args[i]; len(w) > 1 && w[0] == '-' && w != "--" {
			var hasValue bool
			a.Flag = true
			a.Name, a.Value, hasValue = strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := fs.Lookup(a.Name); f != nil && !hasValue {
				switch {
				case isBool(f.Value):
					a.Value = "true"
				case i+1 < len(args):
					a.Value, a.N = args[i+1], 2
					i++
				default:
					a.Missing = true
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// Interspersed puts the flags of args first and the file names after a
// "--", as fs.Parse wants them: people type flags after the files.
func Interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, files []string
	for _, a := range Args(fs, args) {
		switch {
		case a.Missing:
			return append(flags, args[a.At]) // for fs.Parse to say the value is missing
		case a.Flag:
			flags = append(flags, args[a.At:a.At+a.N]...)
		case args[a.At] == "--":
			return append(append(flags, "--"), append(files, args[a.At+1:]...)...)
		default: // "-" is a name, as in package flag
			files = append(files, args[a.At])
		}
	}
	return append(append(flags, "--"), files...)
}

// isBool reports whether v is a boolean flag's value, which takes no argument.
func isBool(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Refuse is the usage error "-name: reason" for the first flag set on fs
// to other than its default that why gives a reason for, or nil.
func Refuse(fs *flag.FlagSet, why func(name string) string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == f.DefValue {
			return
		}
		if r := why(f.Name); err == nil && r != "" {
			err = Usage(fmt.Errorf("-%s: %s", f.Name, r))
		}
	})
	return err
}
