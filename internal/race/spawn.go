package race

import (
	"os/exec"
	"runtime"
)

// spawner starts worker processes from one goroutine locked to its OS thread:
// Linux sends the parent-death signal (sysProcAttr) when the forking thread
// exits, so that thread lives until the last worker is reaped.
type spawner struct {
	reqs chan spawn
	done chan struct{}
}

// spawn is one request to start a process.
type spawn struct {
	cmd *exec.Cmd
	err chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawn), done: make(chan struct{})}
	go func() {
		// Never unlocked: this thread ends with the goroutine.
		runtime.LockOSThread()
		defer close(s.done)
		for r := range s.reqs {
			r.err <- r.cmd.Start()
		}
	}()
	return s
}

// start starts cmd on the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	r := spawn{cmd: cmd, err: make(chan error, 1)}
	s.reqs <- r
	return <-r.err
}

// close ends the spawner; call it once every worker it started has been reaped.
func (s *spawner) close() {
	close(s.reqs)
	<-s.done
}
