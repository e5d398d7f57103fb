package flagval

import (
	"os"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal of cols columns and returns its
// terminal end, as a command's stdout would be in a terminal.
func openTerminal(t *testing.T, cols uint16) *os.File {
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
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal end: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: cols}); err != nil {
		t.Fatal(err)
	}
	return pts
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
