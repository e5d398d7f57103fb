package jobcmd

import (
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// warnKeysInVain warns on stderr which strategies (ids) send keys no step
// of the scenario file at path honours, then the run's warning unless "".
func warnKeysInVain(stderr io.Writer, path string, sc provider.Scenario, ids []string, strategies []strategy.Strategy, warning string) {
	var vain []string
	for i, v := range sim.KeysInVain(sc, strategies) {
		if v && path != "" {
			vain = append(vain, ids[i])
		}
	}
	if len(vain) > 0 {
		fmt.Fprintf(stderr, "retrysim: warning: no step of %s honours keys (keyed: true), so the keys of %s change nothing: each runs as with no key\n",
			path, human.And(vain))
	}
	if warning != "" {
		fmt.Fprintf(stderr, "retrysim: warning: %s\n", warning)
	}
}
