package render

import (
	"flag"
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/internal/human"
)

// ChainEcho is the command line retrysim chain's answers are of: every flag
// of fs the chain reads with its value (the spike's only with a spike, the
// splitting's only with one, never -workers, -shard or -o, which change no
// number), wrapped at 100 columns with its continuation lines indented.
func ChainEcho(fs *flag.FlagSet) string {
	spike := fs.Lookup("shape").Value.String() == "spike"
	split := fs.Lookup("split-orbit").Value.String() != "0"
	words := []string{"retrysim chain"}
	fs.VisitAll(func(f *flag.Flag) {
		switch {
		case f.Name == "workers", f.Name == "shard", f.Name == "o",
			!spike && (f.Name == "peak" || f.Name == "from" || f.Name == "to"),
			!split && strings.HasPrefix(f.Name, "split-"):
			return
		}
		words = append(words, fmt.Sprintf("-%s %s", f.Name, f.Value))
	})
	return strings.TrimSuffix(human.Fill(words, "", "    ", 100), "\n")
}
