package outfile

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/tty"
)

// Progress returns a callback that draws a progress line called name on
// stderr when it is a terminal, and nil otherwise.
func Progress(stderr io.Writer, name string) func(done, total int64) {
	f, ok := stderr.(*os.File)
	if !ok || !tty.IsTerminal(int(f.Fd())) {
		return nil
	}
	m := &meter{w: f, name: name, now: time.Now}
	m.start = m.now()
	return m.report
}

// Progress's pace: nothing before quiet, a redraw at most every redraw.
const (
	quiet  = time.Second
	redraw = 100 * time.Millisecond
)

// meter draws the progress of one run on w, reading the time from now.
type meter struct {
	w     io.Writer
	name  string
	now   func() time.Time
	mu    sync.Mutex // workers report concurrently and out of order
	start time.Time
	drawn time.Time // when the line was last drawn; zero before the first
	shown int64     // the most done reported
	width int       // the columns of the line on the screen
}

// report redraws the line for done of total when due, or clears it when done.
func (m *meter) report(done, total int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if done <= m.shown {
		return
	}
	m.shown = done
	t := m.now()
	if done >= total {
		if m.width > 0 {
			fmt.Fprintf(m.w, "\r%s\r", strings.Repeat(" ", m.width))
			m.width = 0
		}
		return
	}
	if t.Sub(m.start) < quiet || !m.drawn.IsZero() && t.Sub(m.drawn) < redraw {
		return
	}
	m.drawn = t
	line := progressLine(m.name, done, total, t.Sub(m.start))
	pad := max(0, m.width-len(line))
	fmt.Fprintf(m.w, "\r%s%s", line, strings.Repeat(" ", pad))
	m.width = max(m.width, len(line))
}

// barCells is the width of the bar in a progress line.
const barCells = 20

// progressLine is the ASCII line that shows done of total after elapsed,
// and the time left at the pace so far.
func progressLine(name string, done, total int64, elapsed time.Duration) string {
	frac := float64(done) / float64(total)
	full := int(frac * barCells)
	left := time.Duration(float64(elapsed) * (1 - frac) / frac)
	return fmt.Sprintf("%s %3d%% [%s%s] %s/%s  %s, %s left", name, int(frac*100),
		strings.Repeat("#", full), strings.Repeat(" ", barCells-full),
		human.Group(done), human.Group(total),
		human.Duration(elapsed.Round(time.Second)), human.Duration(left.Round(time.Second)))
}
