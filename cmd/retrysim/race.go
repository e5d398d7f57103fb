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

// raceExe is the command retrysim race runs, so retrysim builds without SQLite.
const raceExe = "retrysim-race"

// raceCommand replaces this process with retrysim-race, given the same
// arguments, so it keeps this process's id, streams, signals and exit status.
func raceCommand(_ context.Context, args []string, _, _ io.Writer) error {
	path, err := findRace()
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return fmt.Errorf("race: running %s: %v", path, err) // Exec returns only on failure
}

// findRace is the path of retrysim-race beside this executable, or else on
// PATH, or an error saying how to install it.
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
