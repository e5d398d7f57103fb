package flagval

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/tty"
)

// Output is the flags every command writes its output through: -format,
// which renderer, -o, where, and -width, how wide its tables may be.
type Output struct {
	Format Format
	Out    outfile.File
	Width  Width
}

// Renderer is -format's renderer, its tables fitted to -width when the
// output goes to stdout, as the command's stdout is.
func (o *Output) Renderer(stdout io.Writer) render.Renderer {
	return o.Format.R.WithWidth(o.Width.Of(stdout, o.Out.Path == ""))
}

// MaxWidth is the widest -width takes.
const MaxWidth = 100_000

// Width is -width: the most columns a table may take, 0 for no limit.
type Width struct {
	V     int
	given bool
}

func (w *Width) String() string { return strconv.Itoa(w.V) }

func (w *Width) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 || v > MaxWidth {
		return fmt.Errorf("want a whole number of columns from 0 (no limit) to %d", MaxWidth)
	}
	w.V, w.given = v, true
	return nil
}

func (w *Width) Get() any { return w.V }

// Of is the width given, else stdout's terminal's when the output goes
// there, else render.DefaultWidth.
func (w *Width) Of(stdout io.Writer, toStdout bool) int {
	if w.given {
		return w.V
	}
	if f, ok := stdout.(*os.File); ok && toStdout && tty.IsTerminal(int(f.Fd())) {
		if cols, err := tty.Width(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return render.DefaultWidth
}

// widthUsage is every command's -width usage.
const widthUsage = "fit the table format's tables to `n` columns, 0 for no limit: long headers and row labels wrap onto several lines, and a table still too wide is split into several that each repeat its label columns (no column is dropped, no number cut); markdown cannot fit a width (a markdown row is one line, laid out by whatever shows it), and csv, json and html are not terminal tables"

// outUsage is every command's -o usage.
const outUsage = "write the output to `file` instead of stdout: a regular file is replaced atomically (keeping its mode), a symbolic link's target likewise, a device or FIFO is written in place"

// Register declares -format (the formats that write doc), -o and -width on
// fs, formatNote and outNote ending their usages.
func (o *Output) Register(fs *flag.FlagSet, doc render.Doc, formatNote, outNote string) {
	*o = Output{Format: NewFormat(doc), Out: outfile.File{Flag: "o"}}
	fs.Var(&o.Format, "format", "output `format`: "+strings.Join(render.Names(doc), ", ")+formatNote)
	fs.StringVar(&o.Out.Path, "o", "", outUsage+outNote)
	o.Width = Width{V: render.DefaultWidth}
	fs.Var(&o.Width, "width", widthUsage)
	fs.Lookup("width").DefValue = "the terminal's width, else " + strconv.Itoa(render.DefaultWidth) // not this terminal's
}
