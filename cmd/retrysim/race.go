package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// raceExe is the command that retrysim race runs: the SQLite harness lives
// in a command of its own, so that retrysim builds without the SQLite driver.
const raceExe = "retrysim-race"

// raceCommand replaces this process with retrysim-race, found beside this
// executable or else on PATH, given the same arguments: as kubectl runs its
// plugins, so that the harness keeps this process's id, standard streams and
// signals, and its exit status is the command's.
func raceCommand(_ context.Context, args []string, _, _ io.Writer) error {
	path, err := findRace()
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return fmt.Errorf("race: running %s: %v", path, err) // Exec returns only on failure
}

// findRace is the path of retrysim-race beside this executable (the one
// installed with it), or else on PATH (as for go run, which builds retrysim
// in a temporary directory), or an error saying how to install it.
func findRace() (string, error) {
	dir := "(unknown)"
	if self, err := os.Executable(); err == nil {
		dir = filepath.Dir(self)
		if path, err := exec.LookPath(filepath.Join(dir, raceExe)); err == nil {
			return path, nil
		}
	}
	if path, err := exec.LookPath(raceExe); err == nil {
		return path, nil
	}
	return "", fmt.Errorf("race runs the %s command, found neither in %s beside retrysim nor on PATH: install it from a clone of the repository with go install ./cmd/..., which installs both commands (the module is not published, so go install ...@latest fails)", raceExe, dir)
}
