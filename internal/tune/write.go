package tune

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/schema"
)

// Write writes the result in format (table, markdown, json, csv or html); kind names the kind.
func Write(w io.Writer, format, kind string, r Result) error {
	switch format {
	case "table":
		return writeText(w, r)
	case "json":
		return writeJSON(w, kind, r)
	case "csv":
		return writeCSV(w, r)
	case "markdown":
		return render.WriteTuneMarkdown(w, r.report(kind))
	case "html":
		return render.WriteTuneHTML(w, r.report(kind))
	}
	return pathtext.Errorf("format", "a search writes table, markdown, json, csv, html, not %s", format)
}

// settingsText is a candidate's settings but axis skip's: attempts=4, queue.ttl=1h.
func (r Result) settingsText(c Candidate, skip int) string {
	var parts []string
	for i, a := range r.Search.Axes {
		if i != skip {
			parts = append(parts, fmt.Sprintf("%s=%v", a.Path, a.Write(c.Point[i])))
		}
	}
	return strings.Join(parts, ", ")
}

// cells are a candidate's settings as a table's cells.
func (r Result) cells(c Candidate) []string {
	var cells []string
	for i, a := range r.Search.Axes {
		cells = append(cells, fmt.Sprint(a.Write(c.Point[i])))
	}
	return cells
}

// objectiveName is the objective as given, with its direction.
func (r Result) objectiveName() string {
	if r.Search.Maximize {
		return "maximize " + r.Search.Objective
	}
	return "minimize " + r.Search.Objective
}

// signed is e as a difference: +1 (exact), or +0.0123 [0.0101, 0.0145].
func signed(e schema.Estimate) string {
	v := strconv.FormatFloat(e.Value, 'g', 4, 64)
	if e.Value >= 0 {
		v = "+" + v
	}
	if e.Method == estimate.Exact {
		return v + " (exact)"
	}
	return fmt.Sprintf("%s [%s, %s]", v, strconv.FormatFloat(e.Lo, 'g', 4, 64), strconv.FormatFloat(e.Hi, 'g', 4, 64))
}

// answerLines are the answer's lines: the best or why none, the current settings, the work.
func (r Result) answerLines() []string {
	var b strings.Builder
	judged := func(c Candidate) {
		for _, j := range c.Judged { // failed_rate<=0.0001 holds: 5.484e-05 [3.195e-05, 8.78e-05] (step-samekey)
			fmt.Fprintf(&b, "  %s %s: %s (%s)\n", j.Requirement, j.Verdict, Interval(j.Estimate), j.RowID)
		}
		if r.Search.objectiveAxis() < 0 {
			fmt.Fprintf(&b, "  %s is %s\n", r.Search.Objective, Interval(c.Objective))
		}
	}
	if r.Best >= 0 {
		best := r.Candidates[r.Best]
		fmt.Fprintf(&b, "Best: %s (%s), meeting every requirement:\n", r.settingsText(best, -1), r.objectiveName())
		judged(best)
		if r.RunnerUp >= 0 {
			diff := signed(r.Diff)
			if x := r.Search.objectiveAxis(); x >= 0 && r.Search.Axes[x].Duration { // +1h (exact)
				diff = "+" + human.Seconds(r.Diff.Value) + " (exact)"
				if r.Diff.Value < 0 {
					diff = "-" + human.Seconds(-r.Diff.Value) + " (exact)"
				}
			}
			fmt.Fprintf(&b, "  the runner-up, %s, differs in %s by %s\n", r.settingsText(r.Candidates[r.RunnerUp], -1), r.Search.Objective, diff)
		} else {
			fmt.Fprintf(&b, "  no other candidate meets every requirement\n")
		}
	} else {
		fmt.Fprintf(&b, "No candidate meets every requirement: %s\n", r.ruledOut())
	}
	for _, c := range r.Candidates {
		if !c.Current {
			continue
		}
		fmt.Fprintf(&b, "The current settings, %s: %s\n", r.settingsText(c, -1), c.Status)
		judged(c)
	}
	fmt.Fprintf(&b, "Work: %s of %s %s budgeted; a full grid as sure would take %s\n",
		human.Group(r.Spent), human.Group(r.Search.Budget), r.Unit, human.Group(r.FullGrid))
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// table is the candidates' table, a row a candidate.
func (r Result) table() (head []string, rows [][]string) {
	for _, a := range r.Search.Axes {
		head = append(head, a.Path)
	}
	metric := r.Search.objectiveAxis() < 0
	if metric {
		head = append(head, r.Search.Objective)
	}
	for _, q := range r.Search.Require {
		head = append(head, q.String())
	}
	head = append(head, "status", r.Unit)
	for _, c := range r.Candidates {
		cells := r.cells(c)
		if metric {
			cells = append(cells, Interval(c.Objective))
		}
		for _, j := range c.Judged {
			cells = append(cells, j.Verdict.String()+" "+Interval(j.Estimate))
		}
		status := c.Status
		if c.Current {
			status += " (current)"
		}
		rows = append(rows, append(cells, status, human.Group(c.Work)))
	}
	return head, rows
}

// writeText writes the answer and the table of every candidate.
func writeText(w io.Writer, r Result) error {
	var b strings.Builder
	b.WriteString(strings.Join(r.answerLines(), "\n") + "\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head, rows := r.table()
	for _, cells := range append([][]string{head}, rows...) {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ruledOut says how many candidates each requirement ruled out, failing or undecided.
func (r Result) ruledOut() string {
	var parts []string
	for k, q := range r.Search.Require {
		fails, undecided := 0, 0
		for _, c := range r.Candidates {
			switch c.Judged[k].Verdict {
			case Fails:
				fails++
			case Undecided:
				undecided++
			}
		}
		if fails+undecided == 0 {
			continue
		}
		s := fmt.Sprintf("%s ruled out %d of the %d candidates (fails at %d", q, fails+undecided, len(r.Candidates), fails)
		if undecided > 0 {
			s += fmt.Sprintf(", undecided at %d within the budget", undecided)
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, "; ")
}

// NoneError is a search with no candidate that meets every requirement.
type NoneError struct{ Result Result }

func (e *NoneError) Error() string {
	return "tune: no candidate meets every requirement: " + e.Result.ruledOut()
}

// ExitStatus is 3, the status of a search whose requirements are not met.
func (e *NoneError) ExitStatus() int { return 3 }

// estimateJSON is an estimate as json writes it: null bounds for none.
type estimateJSON struct {
	Value any `json:"value"`
	Lo    any `json:"lo"`
	Hi    any `json:"hi"`
}

// toJSON is e as json writes it, null for what is NaN.
func toJSON(e schema.Estimate) estimateJSON {
	out := estimateJSON{Value: reportjson.NaNNull(e.Value)}
	if !math.IsNaN(e.Lo) && !math.IsNaN(e.Hi) {
		out.Lo, out.Hi = e.Lo, e.Hi
	}
	return out
}

type judgedJSON struct {
	Requirement string       `json:"requirement"`
	Verdict     Verdict      `json:"verdict"`
	Row         string       `json:"row"`
	Estimate    estimateJSON `json:"estimate"`
}

type candidateJSON struct {
	Settings     map[string]any `json:"settings"`
	Current      bool           `json:"current,omitempty"`
	Status       string         `json:"status"`
	Objective    estimateJSON   `json:"objective"`
	Requirements []judgedJSON   `json:"requirements"`
	Work         int64          `json:"work"`
	Batches      int            `json:"batches"`
}

type runnerUpJSON struct {
	Settings   map[string]any `json:"settings"`
	Difference estimateJSON   `json:"difference"`
}

type bestJSON struct {
	candidateJSON
	RunnerUp *runnerUpJSON `json:"runner_up"`
}

func (r Result) candidateOf(c Candidate) candidateJSON {
	out := candidateJSON{Settings: map[string]any{}, Current: c.Current, Status: c.Status, Objective: toJSON(c.Objective),
		Requirements: []judgedJSON{}, Work: c.Work, Batches: c.Batches}
	for i, a := range r.Search.Axes {
		out.Settings[a.Path] = a.Write(c.Point[i])
	}
	for _, j := range c.Judged {
		out.Requirements = append(out.Requirements, judgedJSON{j.Requirement.String(), j.Verdict, j.RowID, toJSON(j.Estimate)})
	}
	return out
}

// writeJSON writes the result as one object.
func writeJSON(w io.Writer, kind string, r Result) error {
	type axisJSON struct {
		Path   string `json:"path"`
		Values []any  `json:"values"`
	}
	doc := struct {
		Kind         string          `json:"kind"`
		Search       []axisJSON      `json:"search"`
		Objective    map[string]any  `json:"objective"`
		Requirements []string        `json:"requirements"`
		Best         *bestJSON       `json:"best"`
		Current      candidateJSON   `json:"current"`
		Candidates   []candidateJSON `json:"candidates"`
		Work         map[string]any  `json:"work"`
	}{Kind: kind, Requirements: []string{}}
	for _, a := range r.Search.Axes {
		x := axisJSON{Path: a.Path}
		for _, v := range a.Values {
			x.Values = append(x.Values, a.Write(v))
		}
		doc.Search = append(doc.Search, x)
	}
	dir, _, _ := strings.Cut(r.objectiveName(), " ")
	doc.Objective = map[string]any{dir: r.Search.Objective}
	for _, q := range r.Search.Require {
		doc.Requirements = append(doc.Requirements, q.String())
	}
	if r.Best >= 0 {
		doc.Best = &bestJSON{candidateJSON: r.candidateOf(r.Candidates[r.Best])}
		if r.RunnerUp >= 0 {
			doc.Best.RunnerUp = &runnerUpJSON{Settings: r.candidateOf(r.Candidates[r.RunnerUp]).Settings, Difference: toJSON(r.Diff)}
		}
	}
	for _, c := range r.Candidates {
		cj := r.candidateOf(c)
		doc.Candidates = append(doc.Candidates, cj)
		if c.Current {
			doc.Current = cj
		}
	}
	doc.Work = map[string]any{"unit": r.Unit, "spent": r.Spent, "budget": r.Search.Budget, "full_grid": r.FullGrid, "first_batch": r.First}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// writeCSV writes a row a candidate.
func writeCSV(w io.Writer, r Result) error {
	cw := csv.NewWriter(w)
	var head []string
	for _, a := range r.Search.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "current", "status", "objective", "objective_lo", "objective_hi")
	for _, q := range r.Search.Require {
		head = append(head, q.String(), q.String()+" value", q.String()+" lo", q.String()+" hi")
	}
	head = append(head, r.Unit)
	if err := cw.Write(head); err != nil {
		return err
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, c := range r.Candidates {
		rec := append(r.cells(c), strconv.FormatBool(c.Current), c.Status, num(c.Objective.Value), num(c.Objective.Lo), num(c.Objective.Hi))
		for _, j := range c.Judged {
			rec = append(rec, j.Verdict.String(), num(j.Estimate.Value), num(j.Estimate.Lo), num(j.Estimate.Hi))
		}
		rec = append(rec, strconv.FormatInt(c.Work, 10))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
