package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// mergeOwn are the flags that say where and how a run's outputs are
// written, help and the slice: merge takes them from its own command line
// only, so a shard never carries one.
var mergeOwn = []string{"o", "plot", "series", "format", "width", "metric", "log-y", "linear-y", "own-scales", "ci", "expect", "shard", "workers", "help", "h"}

// shardSettings are the settings of a run that fs has parsed from args, as
// a shard carries them: each flag given, in the order given (a repeated one
// each time), but those merge takes from its own command line.
func shardSettings(fs *flag.FlagSet, args []string) []shardfile.Setting {
	var out []shardfile.Setting
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" || !strings.HasPrefix(arg, "-") || arg == "-" {
			return out // flagval.Parse has refused what follows
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if f := fs.Lookup(name); f != nil && !hasValue {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				value = "true"
			} else if i+1 < len(args) {
				i++
				value = args[i]
			}
		}
		if !slices.Contains(mergeOwn, name) {
			out = append(out, shardfile.Setting{Flag: name, Value: value})
		}
	}
	return out
}

// settingArgs are the flags that make again the run whose shard h heads:
// one -flag=value a setting, refusing a setting merge takes from its own
// command line (an output, a format, help), so that a shard decides no
// output's place or form; the command refuses a flag it does not have.
func settingArgs(h shardfile.Header) ([]string, error) {
	args := make([]string, 0, len(h.Settings))
	for i, s := range h.Settings {
		if slices.Contains(mergeOwn, s.Flag) {
			return nil, fmt.Errorf("settings[%d]: -%s is not a setting of the run; it is given to retrysim merge", i, s.Flag)
		}
		args = append(args, "-"+s.Flag+"="+s.Value)
	}
	return args, nil
}

// refuseInShard refuses, in a run that writes a shard, the flags of names
// given: merge takes them from its own command line.
func refuseInShard(fs *flag.FlagSet, names ...string) error {
	return flagval.Refuse(fs, func(n string) string {
		if slices.Contains(names, n) {
			return fmt.Sprintf("a shard carries the run's settings, not how it is printed; give -%s to retrysim merge", n)
		}
		return ""
	})
}
