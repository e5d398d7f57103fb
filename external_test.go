package retrysim_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestExternalModule builds and tests testdata/external, a module of its own
// that imports github.com/retrysim/retrysim and does what a user would: the
// article's table with its intervals; its own strategies and scenario
// through the Part 5 engines and the delivery model, sharded and merged
// (four shards through files and memory), and beside the built-ins under
// -race; a five-step workflow built in Go with per-step attempts and keys
// and two watched steps, in both models; a sweep over its own strategy; a
// fleet run with its own policy, reading the per-second series; and a
// report in every format, the command's bytes. It runs the go command offline (GOPROXY=off) with a
// go.mod derived from the root's: the root's requirements and go.sum, plus
// retrysim itself replaced by this directory, so that every module it needs
// is one the root's build has already fetched.
func TestExternalModule(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the external module: %v", err)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rootMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	first, rest, ok := bytes.Cut(rootMod, []byte("\n"))
	if !ok || string(first) != "module github.com/retrysim/retrysim" {
		t.Fatalf("go.mod starts %q; want the module line", first)
	}
	mod := "module example.com/ownjob\n" + string(rest) +
		"\nrequire github.com/retrysim/retrysim v0.0.0\n\nreplace github.com/retrysim/retrysim => " + root + "\n"
	dir := t.TempDir()
	modfile := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(modfile, []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	// Every test, and beside it the team's own strategies with the
	// built-ins under the race detector: the engines call a strategy's Run
	// from several goroutines at once, as its doc says. The two go tests
	// run side by side, the race detector's build and run taking the
	// longer.
	runs := [][]string{nil, {"-race", "-run", "^TestOwnStrategyRace$"}}
	outs := make([][]byte, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, flags := range runs {
		args := append([]string{"test", "-count=1", "-p=1", "-modfile=" + modfile}, flags...)
		cmd := exec.Command(gobin, append(args, ".")...)
		cmd.Dir = filepath.Join("testdata", "external")
		// GOFLAGS carries the go.mod to the go commands the module's tests
		// run themselves (go run of retrysim's command, to compare outputs).
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly -modfile="+modfile, "GOWORK=off", "GOTOOLCHAIN=local")
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for i, flags := range runs {
		if errs[i] != nil {
			t.Errorf("go test %s in testdata/external: %v\n%s", strings.Join(flags, " "), errs[i], outs[i])
		} else if !strings.HasPrefix(string(outs[i]), "ok  \texample.com/ownjob") {
			t.Errorf("go test %s in testdata/external printed %q; want ok", strings.Join(flags, " "), outs[i])
		}
	}
}
