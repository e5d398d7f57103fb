package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/schema"
)

// Names name the flag of each setting, by the path a library's
// *schema.FieldError names it by: a key a path, or PREFIX* every other path
// PREFIX starts, the flag's %s the rest of the path ("*": any other path);
// a table holds at most one PREFIX*.
type Names map[string]string

// FlagError is err in the command's words when it is a library's
// *schema.FieldError whose path names has a flag of: "FLAG: why", why its
// message in words (nil: as it is); any other error as it is.
func FlagError(err error, names Names, words func(*schema.FieldError) string) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	name, ok := names[fe.Field]
	for pattern, flag := range names {
		if rest, found := strings.CutPrefix(fe.Field, strings.TrimSuffix(pattern, "*")); !ok && found && strings.HasSuffix(pattern, "*") {
			name = fmt.Sprintf(flag, rest)
		}
	}
	if name == "" {
		return err
	}
	if words == nil {
		return fmt.Errorf("%s: %s", name, fe.Msg)
	}
	return fmt.Errorf("%s: %s", name, words(fe))
}

// graphError is a graph's refusal in the command's words, a usage error:
// of the options as their flags (-worker-count the model's workers); of a
// file's graph (loaded) at the file's line; else of the preset. Any other
// error (an interrupt) is returned as it is.
func graphError(err error, loaded *scenario.Graph) error {
	names := Names{"replicates": "-replicates", "workers": "-workers", "worker_count": "-worker-count"}
	if loaded == nil { // a file's duration is its own
		names["duration"] = "-duration"
	}
	switch named := FlagError(err, names, nil); {
	case !errors.As(err, new(*schema.FieldError)):
		return err
	case named != err:
		return flagval.Usage(named)
	case loaded != nil:
		return flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(err)))
	}
	return flagval.Usage(fmt.Errorf("-preset: %s", strings.TrimSpace(err.Error())))
}

// setRefused is a refusal of a sweep's settings, a usage error naming
// -set, and the path of a setting refused.
func setRefused(err error) error {
	var ue flagval.UsageError
	if errors.As(err, &ue) {
		return err
	}
	if _, ok := err.(*schema.FieldError); ok {
		return flagval.Usage(fmt.Errorf("-set %w", err))
	}
	return flagval.Usage(fmt.Errorf("-set: %w", err))
}
