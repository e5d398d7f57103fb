package flagval

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal of cols columns and returns its
// terminal end, as a command's stdout would be in a terminal.
func openTerminal(t *testing.T, cols uint16) *os.File {
	t.Helper()
	_, pts := openTerminalPair(t, cols)
	return pts
}

// openTerminalPair is openTerminal's pseudo-terminal with its other end,
// which reads what is written to the terminal.
func openTerminalPair(t *testing.T, cols uint16) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	unlock := 0
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, ptmx.Fd(), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal end: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: cols}); err != nil {
		t.Fatal(err)
	}
	return ptmx, pts
}

// -width not given is the terminal's width when the output goes to a
// terminal, and 100 when -o sends it elsewhere; given, it is what was given.
func TestWidthOfATerminal(t *testing.T) {
	tty := openTerminal(t, 132)
	var w Width
	if got := w.Of(tty, true); got != 132 {
		t.Errorf("a 132-column terminal: width %d; want 132", got)
	}
	if got := w.Of(tty, false); got != 100 {
		t.Errorf("a terminal, output to -o: width %d; want 100", got)
	}
	if err := w.Set("80"); err != nil {
		t.Fatal(err)
	}
	if got := w.Of(tty, true); got != 80 {
		t.Errorf("-width 80 in a 132-column terminal: %d; want 80", got)
	}
}

// -help wraps each flag's usage to the terminal's width when stdout is a
// terminal (fleet -help had lines of 913 columns), indented as
// flag.PrintDefaults indents, and keeps every word in its order.
func TestHelpWrapsToTheTerminal(t *testing.T) {
	usage := strings.Repeat("lorem ipsum dolor ", 10) + "sit"
	for _, tt := range []struct {
		cols uint16
		want int // columns of the widest line: a word of 5 and a space more would pass cols
	}{{40, 37}, {60, 55}, {200, 8 + len(usage)}} {
		tty := openTerminal(t, tt.cols)
		fs := NewFlagSet("x")
		fs.String("name", "", usage)
		if err := ParseFlags(fs, []string{"-help"}, "Flags:\n", tty); err == nil {
			t.Fatal("-help: no HelpError")
		}
		var b bytes.Buffer
		PrintGroups(&b, fs, nil, helpWidth(tty))
		widest, words := 0, []string{}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:] {
			rest, ok := strings.CutPrefix(line, "    \t")
			if !ok {
				t.Fatalf("%d columns: line %q is not indented as a usage", tt.cols, line)
			}
			widest = max(widest, 8+len(rest))
			words = append(words, strings.Fields(rest)...)
		}
		if widest != tt.want {
			t.Errorf("%d columns: widest line %d columns; want %d:\n%s", tt.cols, widest, tt.want, b.String())
		}
		if got := strings.Join(words, " "); got != usage {
			t.Errorf("%d columns: the usage reads %q; want %q", tt.cols, got, usage)
		}
	}
}

// An interrupt's line on a terminal starts on a cleared line, not after a
// progress line the run drew; elsewhere it is the line alone.
func TestInterruptClearsTheProgressLine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ptmx, tty := openTerminalPair(t, 80)
	if got := ExitStatus(ctx, ctx.Err(), tty); got != ExitFailure {
		t.Errorf("ExitStatus = %d; want %d", got, ExitFailure)
	}
	tty.WriteString("|")                                              // the end of what to read
	want := "\r\x1b[Kretrysim: interrupted; nothing was written\r\n|" // the terminal writes \n as \r\n
	if got, err := bufio.NewReader(ptmx).ReadString('|'); err != nil || got != want {
		t.Errorf("on a terminal: %q, %v; want %q", got, err, want)
	}
	var b bytes.Buffer
	ExitStatus(ctx, ctx.Err(), &b)
	if got, want := b.String(), "retrysim: interrupted; nothing was written\n"; got != want {
		t.Errorf("off a terminal: %q; want %q", got, want)
	}
}
