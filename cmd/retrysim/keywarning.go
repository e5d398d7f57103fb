package main

import (
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// warnKeysInVain writes on stderr, for a scenario file none of whose steps
// honours keys, which of the strategies (ids, as -strategies names them)
// send a key that nothing reads, so that a row which equals its nokey twin
// is not read as an effect of the key.
func warnKeysInVain(stderr io.Writer, path string, sc provider.Scenario, ids []string, strategies []strategy.Strategy) {
	var vain []string
	for i, v := range strategy.KeysInVain(sc, strategies) {
		if v {
			vain = append(vain, ids[i])
		}
	}
	if len(vain) == 0 {
		return
	}
	fmt.Fprintf(stderr, "retrysim: warning: no step of %s honours keys (keyed: true), so the keys of %s change nothing: each runs as with no key\n",
		path, human.And(vain))
}
