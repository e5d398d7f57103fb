package race

import (
	"os/exec"
	"runtime"
)

// spawner starts worker processes from one goroutine locked to its OS
// thread, for the parent-death signal (see sysProcAttr): Linux sends it when
// the thread that forked the child exits, not when the process does, and Go
// ends a thread whenever a goroutine locked to it returns. Forking every
// worker from a thread that stays locked until the last worker is reaped
// makes the signal mean "the harness died" and nothing else.
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
		// Never unlocked: when close ends this goroutine its thread ends
		// too, and a worker still alive then would get its signal.
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
