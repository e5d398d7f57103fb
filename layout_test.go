package retrysim_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// computation are the packages that simulate and compute: the engines, the
// models, the strategies and the statistics. They must build without any
// presentation library, so that a program embedding the simulator does not
// pull in tables and plots, and so that no number can depend on a renderer.
var computation = []string{
	"github.com/retrysim/retrysim/internal/sim",
	"github.com/retrysim/retrysim/internal/rng",
	"github.com/retrysim/retrysim/delivery",
	"github.com/retrysim/retrysim/strategy",
	"github.com/retrysim/retrysim/fleet",
	"github.com/retrysim/retrysim/stats",
	"github.com/retrysim/retrysim/provider",
	"github.com/retrysim/retrysim/backoff",
}

// presentation are the import path prefixes only internal/render may reach.
var presentation = []string{
	"github.com/olekukonko/tablewriter",
	"gonum.org/v1/plot",
	"github.com/retrysim/retrysim/internal/render",
}

// TestComputationImportsNoPresentation runs `go list -deps` over the
// computation packages and fails naming the import chain that reaches a
// presentation package, e.g. "internal/sim -> stats -> tablewriter".
func TestComputationImportsNoPresentation(t *testing.T) {
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, computation...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	for _, root := range computation {
		if _, ok := imports[root]; !ok {
			t.Fatalf("go list -deps does not list %s", root)
		}
		if chain := pathTo(imports, root, isPresentation); chain != nil {
			t.Errorf("%s imports presentation: %s", root, strings.Join(chain, " -> "))
		}
	}
}

func isPresentation(path string) bool {
	return slices.ContainsFunc(presentation, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") })
}

// pathTo is the shortest import chain from root to a package match accepts,
// or nil if there is none (breadth first over the import graph).
func pathTo(imports map[string][]string, root string, match func(string) bool) []string {
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if match(p) {
			var chain []string
			for ; p != ""; p = from[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, q := range imports[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
