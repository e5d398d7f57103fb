package outfile

import (
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress returns a progress callback that draws a bar called name, with an
// ETA, on stderr when stderr is a terminal, and nil (silence) otherwise.
func Progress(stderr io.Writer, name string) func(done, total int64) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var mu sync.Mutex // workers report concurrently and out of order
	var bar *progressbar.ProgressBar
	var shown int64
	return func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(f),
				progressbar.OptionSetDescription(name),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionClearOnFinish())
		}
		if done > shown {
			shown = done
			bar.Set64(done)
		}
	}
}
