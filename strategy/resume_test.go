package strategy

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"slices"
	"testing"

	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// TestResumeJobIsResume holds the Part 5 engines' copy of Retry's loop to the
// one every other Calls runs: resumeJob's body must be resume's, token for
// token, so that what Retry does stays defined once.
func TestResumeJobIsResume(t *testing.T) {
	src, err := os.ReadFile("strategy.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "strategy.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	params := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || (fn.Name.Name != "resume" && fn.Name.Name != "resumeJob") {
			continue
		}
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, fn.Body); err != nil {
			t.Fatal(err)
		}
		bodies[fn.Name.Name] = b.String()
		ps := fn.Type.Params
		params[fn.Name.Name] = string(src[fset.Position(ps.Pos()).Offset:fset.Position(ps.End()).Offset])
	}
	if bodies["resume"] == "" || bodies["resume"] != bodies["resumeJob"] {
		t.Errorf("resumeJob's body differs from resume's; keep them the same:\nresume:\n%s\nresumeJob:\n%s", bodies["resume"], bodies["resumeJob"])
	}
	if params["resume"] != "(c Calls, from int)" || params["resumeJob"] != "(c *jobsim.Job, from int)" {
		t.Errorf("parameters: resume %s, resumeJob %s; want (c Calls, from int) and (c *jobsim.Job, from int)", params["resume"], params["resumeJob"])
	}
}

// hidden is a *jobsim.Job seen only through Calls, so resumeAt takes the
// path every strategy.Calls other than the Part 5 engines' takes.
type hidden struct{ Calls }

// TestResumeJobRunsAsResume runs every Retry through both paths on the same
// draws: a Job that resumeAt sees as such, and the same Job behind the
// interface. Each job starts at a step Settle chooses, so late starts are
// compared too, and a scenario with per-step policies, keyed providers and
// lost replies at high rates exercises every retry branch. The counters,
// each step's effects, the outcome and the draws taken must be equal job by
// job.
func TestResumeJobRunsAsResume(t *testing.T) {
	same, fresh := schema.SameKey, schema.FreshKeys
	plain := provider.Signup(0.3, 0.3)
	own := provider.Scenario{Name: "own", Noun: "jobs", Watched: []provider.Watch{{Step: 1}}}
	for i := range 5 {
		own.Steps = append(own.Steps, provider.Step{Name: fmt.Sprint(i), PFail: 0.25, CanLoseReply: i%2 == 1, LostReply: 0.3, HonoursKeys: i >= 2})
	}
	own.Steps[1].Retry.Attempts = 5
	own.Steps[2].Retry.Keys = &same
	own.Steps[3].Retry = provider.StepRetry{Attempts: 1, Keys: &fresh}
	own.Steps[4].Retry.Attempts = 4
	for _, sc := range []provider.Scenario{plain, own} {
		for _, scope := range []Scope{EachStep, WholeJob} {
			for _, keys := range []schema.KeyMode{schema.NoKeys, schema.FreshKeys, schema.SameKey} {
				for _, skip := range []bool{false, true} {
					for _, attempts := range []int{1, 3} {
						r := Retry{Scope: scope, Keys: keys, SkipFinished: skip, Attempts: attempts}
						t.Run(fmt.Sprintf("%s/%s/%d", sc.Name, r.Name(), attempts), func(t *testing.T) {
							compareResume(t, sc, r)
						})
					}
				}
			}
		}
	}
}

func compareResume(t *testing.T, sc provider.Scenario, r Retry) {
	const jobs = 2000
	fast, slow := rng.NewStream(rng.PCGGenerator().New(7, 0)), rng.NewStream(rng.PCGGenerator().New(7, 0))
	jf, js := jobsim.New(sc, fast), jobsim.New(sc, slow)
	jf.UseStore(r.UsesStore())
	js.UseStore(r.UsesStore())
	k := len(jf.Clean())
	for n := range jobs {
		jf.Reset()
		js.Reset()
		from, draws := jf.Settle(n % k)
		js.Settle(n % k)
		fast.Peek(draws)
		slow.Peek(draws)
		fast.Skip(draws)
		slow.Skip(draws)
		okf, oks := r.resumeAt(jf, from), r.resumeAt(hidden{js}, from)
		if okf != oks || jf.Calls() != js.Calls() || jf.Effects() != js.Effects() ||
			jf.Repeated() != js.Repeated() || fast.Draws() != slow.Draws() ||
			!slices.Equal(jf.DoneBySteps(), js.DoneBySteps()) {
			t.Fatalf("job %d from step %d: Job: ok %v, calls %d, effects %d, repeated %d, done %v, draws %d; through Calls: %v, %d, %d, %d, %v, %d",
				n, from, okf, jf.Calls(), jf.Effects(), jf.Repeated(), jf.DoneBySteps(), fast.Draws(),
				oks, js.Calls(), js.Effects(), js.Repeated(), js.DoneBySteps(), slow.Draws())
		}
	}
}
