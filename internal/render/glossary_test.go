package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
)

// outputTerms are the terms the outputs for people print, read from the
// renderers' own header tables, row labels and title words (not copied
// from an output): every column header of every document, the labels of
// the rows under a strategy's, the fleet's recovery verdicts, the swept
// metrics' labels, and the engines' and the delivery model's title words.
func outputTerms() []string {
	var terms []string
	report := stats.Report{Params: stats.Params{Watched: []stats.Watch{{}}, Delivery: &stats.DeliveryParams{}}}
	terms = append(terms, reportColumns(report).header()...)
	terms = append(terms, fleetColumns.header()...)
	terms = append(terms, graphColumns.header()...)
	terms = append(terms, workersColumns.header()...)
	terms = append(terms, fleetdata.EndToEnd)
	terms = append(terms, mapColumns.header()...)
	terms = append(terms, casesHeader...)
	terms = append(terms, raceHeader(true)...)
	terms = append(terms, "Step", byStepHeading, expectedRowLabel, spreadRowLabel, totalsSucceeded, totalsCallsARequest, "Failure rate", "Clients")
	terms = append(terms, recoveryJudged(fleetdata.RunRow{}), recoveryJudged(fleetdata.RunRow{Trigger: true}))
	for _, m := range stats.Metrics() {
		terms = append(terms, m.Label)
	}
	terms = append(terms, engineTerm("skip"), engineTerm("plain"), deliveryModelTerm)
	var out []string
	for _, t := range terms {
		if t != "" && !slices.Contains(out, t) { // the watched step's column is named by its label
			out = append(out, t)
		}
	}
	return out
}

// headerLiterals are the strings in the renderers' sources that head a
// table: of every []string literal or string assigned to, or given as the
// field of, a name that ends in "header" (pageTable's header, a column's),
// and the first argument of a column's constructor (estimateColumn),
// read from the Go files themselves, so that a new table's header is among
// them without a change here.
func headerLiterals(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	str := func(e ast.Expr) {
		if s, ok := e.(*ast.BasicLit); ok && s.Kind == token.STRING {
			v, err := strconv.Unquote(s.Value)
			if err != nil {
				t.Fatal(err)
			}
			if v != "" {
				out = append(out, v)
			}
		}
	}
	collect := func(name string, e ast.Expr) {
		if !strings.HasSuffix(strings.ToLower(name), "header") {
			return
		}
		str(e) // a column's declared header
		if lit, ok := e.(*ast.CompositeLit); ok {
			for _, el := range lit.Elts {
				str(el)
			}
		}
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, v := range n.Values {
					collect(n.Names[i].Name, v)
				}
			case *ast.AssignStmt:
				for i, v := range n.Rhs {
					if id, ok := n.Lhs[i].(*ast.Ident); ok && len(n.Lhs) == len(n.Rhs) {
						collect(id.Name, v)
					}
				}
			case *ast.CallExpr: // a column's constructor, its header first
				fun := n.Fun
				if ix, ok := fun.(*ast.IndexExpr); ok {
					fun = ix.X
				}
				if id, ok := fun.(*ast.Ident); ok && strings.HasSuffix(id.Name, "Column") && len(n.Args) > 0 {
					str(n.Args[0])
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					collect(id.Name, n.Value)
				}
			}
			return true
		})
	}
	return out
}

// Every header a renderer's source writes is among outputTerms, so the
// glossary test below covers it (the workers' table was missing).
func TestOutputTermsHoldEveryHeader(t *testing.T) {
	lits := headerLiterals(t)
	if !slices.Contains(lits, "Peak backlog") || !slices.Contains(lits, "Step") {
		t.Fatalf("headerLiterals = %q; want the workers' and the steps' headers among them", lits)
	}
	terms := outputTerms()
	for _, h := range lits {
		if !slices.Contains(terms, h) {
			t.Errorf("a renderer heads a column %q, which outputTerms (and so TestGlossary) does not hold", h)
		}
	}
}

// TestGlossary is issue 23 item 6: terms were printed long before the
// README explained them. The glossary (glossary.md here, which `retrysim
// help glossary` writes to docs/glossary.md) has an entry ("### Term") for
// every term an output prints, in alphabetical order, and the README links
// to it.
func TestGlossary(t *testing.T) {
	var entries []string
	for _, line := range strings.Split(Glossary(), "\n") {
		if term, ok := strings.CutPrefix(line, "### "); ok {
			entries = append(entries, strings.ToLower(term))
		}
	}
	if len(entries) != len(glossary()) {
		t.Errorf("%d entries, glossary() reads %d", len(entries), len(glossary()))
	}
	if !slices.IsSorted(entries) {
		t.Errorf("the glossary's entries are not in alphabetical order: %q", entries)
	}
	for _, term := range outputTerms() {
		if !slices.Contains(entries, strings.ToLower(term)) {
			t.Errorf("the outputs print %q, which the glossary has no entry for", term)
		}
	}
	// The header tables hold what the tests above read: a header of the
	// table command and one of the fleet's.
	if terms := outputTerms(); !slices.Contains(terms, "Steps done again") || !slices.Contains(terms, "Recovered") {
		t.Errorf("outputTerms = %q; want the table's and the fleet's headers among them", terms)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/glossary.md)") {
		t.Error("the README does not link to docs/glossary.md")
	}
}
