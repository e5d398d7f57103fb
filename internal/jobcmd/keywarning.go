package jobcmd

import (
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// warnKeysInVain writes on stderr, for a scenario file (path, "" for
// none) none of whose steps honours keys, which of the strategies (ids, as
// -strategies names them) send a key that nothing reads, so that a row
// which equals its nokey twin is not read as an effect of the key; then
// the run's own warning, unless it is "".
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
