package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/flagval"
)

// stopBound is how long after a signal a run may take to exit: the engines
// look at the context every few thousand events or jobs, well under a
// millisecond's work, so the bound is there only for a loaded machine. Each
// run below takes minutes (or hours) when the signal is not seen.
const stopBound = 3 * time.Second

// earlier is what -o's file holds before the run: an interrupted run must
// leave it so.
const earlier = "an earlier run's output\n"

// child is retrysim running as a process of its own (this test binary, as
// TestMain lets it), in a directory whose only file is out.txt.
type child struct {
	cmd            *exec.Cmd
	dir            string
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

// startChild starts retrysim with args; stderr, if not nil, replaces the
// buffer the child's standard error goes to.
func startChild(t *testing.T, stderr *os.File, args ...string) *child {
	t.Helper()
	c := &child{dir: t.TempDir(), done: make(chan struct{})}
	if err := os.WriteFile(filepath.Join(c.dir, "out.txt"), []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(os.Args[0], args...)
	c.cmd.Dir = c.dir
	c.cmd.Env = append(os.Environ(), asRetrysim+"=1")
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if stderr != nil {
		c.cmd.Stderr = stderr
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() { // whatever the test did, nothing outlives it
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

// cpuTicks is the CPU time the child has used, in clock ticks (utime and
// stime of /proc/PID/stat).
func (c *child) cpuTicks(t *testing.T) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0 // exited
	}
	// The command name, in parentheses, may hold spaces: count after it.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return utime + stime
}

// working waits until the child has used half a second of CPU: flags and
// checks take microseconds, so it is then deep in its engine.
func (c *child) working(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); c.cpuTicks(t) < 50; {
		select {
		case <-c.done:
			t.Fatalf("exited before the signal: %v\nstderr: %s", c.cmd.ProcessState, c.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("not working after a minute")
		}
	}
}

// stopsWithin waits for the child to exit, failing the test if it takes
// longer than limit.
func (c *child) stopsWithin(t *testing.T, limit time.Duration, after string) {
	t.Helper()
	start := time.Now()
	select {
	case <-c.done:
		t.Logf("exited %v after %s", time.Since(start).Round(time.Millisecond), after)
	case <-time.After(limit):
		t.Fatalf("still running %v after %s", limit, after)
	}
}

// untouched fails the test if the child's directory holds anything but
// out.txt as it was.
func (c *child) untouched(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir(c.dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v; want out.txt alone", names)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "out.txt")); string(b) != earlier {
		t.Errorf("out.txt holds %q; want %q, as before the run", b, earlier)
	}
}

// Ctrl-C, SIGTERM and SIGHUP stop every model within a second, in the middle
// of its unit of work (a replicate, a block of jobs, a job), with exit status
// 1, the interrupted line and -o's file as it was. Before, the engines looked
// at the signal only between replicates and between blocks of 65,536 jobs:
// the one-replicate fleet run ignored it and replaced out.txt, the delivery
// model's three jobs took a minute more, and a sequential generator's single
// block (mulberry32), in a run or a sweep's point, never stopped.
func TestSignalStopsEveryModel(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
		args []string
	}{
		// 10^7 requests in one replicate, of about 1,000 in flight: tens of seconds.
		{"fleet one replicate SIGINT", syscall.SIGINT, []string{"fleet", "-server", "independent", "-base", "10ms", "-net", "0",
			"-rate", "100000", "-duration", "100s", "-replicates", "1", "-workers", "1", "-o", "out.txt"}},
		{"fleet two replicates SIGTERM", syscall.SIGTERM, []string{"fleet", "-server", "independent", "-base", "10ms", "-net", "0",
			"-rate", "100000", "-duration", "100s", "-replicates", "2", "-workers", "2", "-o", "out.txt"}},
		{"fleet SIGHUP", syscall.SIGHUP, []string{"fleet", "-server", "independent", "-base", "10ms", "-net", "0",
			"-rate", "100000", "-duration", "100s", "-replicates", "1", "-workers", "1", "-o", "out.txt"}},
		// Up to 1,000 deliveries of a job at once, each up to 10 x 1,000
		// calls: each job takes tens of seconds.
		{"delivery model mid-job SIGINT", syscall.SIGINT, []string{"-model", "delivery", "-jobs", "3", "-attempts", "1000", "-max-deliveries", "1000",
			"-p-fail", "0.999", "-latency", "1ms", "-visibility", "1ms", "-workers", "1", "-o", "out.txt"}},
		{"delivery model mid-job SIGTERM", syscall.SIGTERM, []string{"-model", "delivery", "-jobs", "10", "-attempts", "1000", "-max-deliveries", "1000",
			"-p-fail", "0.999", "-latency", "1ms", "-visibility", "1ms", "-workers", "1", "-o", "out.txt"}},
		// A sequential generator's jobs are one block: 10^12 jobs of about
		// 1,600 calls each would take years.
		{"plain engine mid-block SIGINT", syscall.SIGINT, []string{"-rng", "mulberry32", "-engine", "plain", "-jobs", "1e12",
			"-p-fail", "0.999", "-attempts", "1000", "-strategies", "step-nokey", "-workers", "1", "-o", "out.txt"}},
		{"plain engine mid-block SIGTERM", syscall.SIGTERM, []string{"-rng", "mulberry32", "-jobs", "1e12",
			"-p-fail", "0.999", "-attempts", "1000", "-strategies", "job-samekey-skip", "-workers", "1", "-o", "out.txt"}},
		{"sweep mid-point SIGINT", syscall.SIGINT, []string{"sweep", "-p-fail", "0.99:0.999:3", "-rng", "mulberry32", "-jobs", "1e12",
			"-attempts", "1000", "-workers", "1", "-o", "out.txt"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startChild(t, nil, tt.args...)
			c.working(t)
			c.cmd.Process.Signal(tt.sig)
			c.stopsWithin(t, stopBound, tt.sig.String())
			// The delivery model's settings draw a warning first.
			if code := c.cmd.ProcessState.ExitCode(); code != flagval.ExitFailure || c.stdout.Len() > 0 ||
				!strings.HasSuffix(c.stderr.String(), "retrysim: interrupted; nothing was written\n") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and the interrupted line last", code, c.stdout.String(), c.stderr.String())
			}
			c.untouched(t)
		})
	}
}

// A second signal ends the process at once, whatever it is doing: here it is
// stuck writing the interrupted line to a full pipe that nobody reads, and
// the second SIGINT kills it (the default action, as if retrysim did not
// catch signals). Before, the handler stayed installed and swallowed the
// second signal, and the process waited for ever.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer r.Close()
	// Fill the pipe, blocking, while it is still empty: the child's first
	// write to stderr then blocks.
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), syscall.F_GETPIPE_SZ, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	if n, err := syscall.Write(p[1], make([]byte, size)); n != int(size) || err != nil {
		t.Fatalf("filling the pipe: wrote %d of %d: %v", n, size, err)
	}
	c := startChild(t, w, "fleet", "-server", "independent", "-base", "10ms", "-net", "0",
		"-rate", "100000", "-duration", "100s", "-replicates", "1", "-workers", "1", "-o", "out.txt")
	w.Close()
	c.working(t)
	c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
		t.Fatalf("exited after the first signal (%v), though its stderr is full", c.cmd.ProcessState)
	case <-time.After(time.Second): // stopped, and stuck writing its line
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	c.stopsWithin(t, stopBound, "the second SIGINT")
	if ws := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("ended with %v; want killed by SIGINT", c.cmd.ProcessState)
	}
	c.untouched(t)
}
