package incident

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/reportjson"
)

// Formats are the formats a replay is written in, the default first.
func Formats() []string { return []string{"table", "markdown", "csv", "json"} }

// tuneNote says where what retrysim tune finds for an incident is shown.
const tuneNote = "What retrysim tune finds for it (the cheapest setting that keeps the recovered share's lower bound above 90%, " +
	"or the duplicates at 0) is in its section of docs/incidents.md, beside the fix: retrysim tune fleet|workers " +
	"-scenario FILE searches the settings of the scenario files above (docs/tune.md, \"The fleet family\")."

// List writes the gallery, an incident a line, wrapped at width.
func List(w io.Writer) error {
	var b strings.Builder
	b.WriteString("The incident gallery (retrysim incident NAME replays one; docs/incidents.md):\n")
	for _, inc := range Gallery() {
		head := fmt.Sprintf("  %-26s %-8s ", inc.Name, inc.Kind)
		text := human.Wrap(fmt.Sprintf("%s, %s: %s", inc.Date, inc.Organisation, inc.Title), strings.Repeat(" ", len(head)), width)
		b.WriteString(head + text[len(head):])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Write writes rep in format, one of Formats; json holds the runs' rows as
// the fleet or workers command writes them.
func Write(w io.Writer, rep *Report, format string) error {
	switch format {
	case "table", "markdown":
		return writeText(w, rep, format)
	case "csv":
		return writeCSV(w, rep)
	case "json":
		return writeJSON(w, rep)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

// title is the replay's heading.
func (rep *Report) title() string {
	return fmt.Sprintf("retrysim incident %s: %s, %s, seed %d", rep.Incident.Name, human.Duration(rep.Incident.Duration),
		human.Count(int64(rep.Replicates), "replicate"), rep.Seed)
}

// shareText is an outcome's share as "k of n (p% [lo, hi])".
func shareText(o Outcome) string {
	s := o.Share
	if s.N == 0 {
		return "none judged"
	}
	return fmt.Sprintf("%d of %d (%s%% [%s, %s])", s.Count(), s.N, pct(s.Value), pct(s.Lo), pct(s.Hi))
}

// pct is a share as a percentage, to one decimal where it is not whole.
func pct(x float64) string { return strings.TrimSuffix(strconv.FormatFloat(100*x, 'f', 1, 64), ".0") }

// number is a figure as the tables print it: at most 4 significant digits.
func number(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// width is the widest line the table format writes of its own text.
const width = 100

// table writes rows, the first the header, as a padded text table or as markdown.
func table(b *strings.Builder, rows [][]string, md bool) {
	if md {
		for i, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
			if i == 0 {
				b.WriteString(strings.Repeat("| --- ", len(r)) + "|\n")
			}
		}
		return
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, c := range r {
			widths[j] = max(widths[j], len(c))
		}
	}
	seps := make([]string, len(widths))
	for j, n := range widths {
		seps[j] = strings.Repeat("-", n)
	}
	for _, r := range append([][]string{rows[0], seps}, rows[1:]...) {
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = c + strings.Repeat(" ", widths[j]-len(c))
		}
		b.WriteString(strings.TrimRight("  "+strings.Join(cells, "  "), " ") + "\n")
	}
}

// writeText writes rep as text for a terminal, or as markdown.
func writeText(w io.Writer, rep *Report, format string) error {
	inc, md := rep.Incident, format == "markdown"
	var b strings.Builder
	head := func(s string) {
		if md {
			b.WriteString("\n### " + s + "\n\n")
		} else {
			b.WriteString("\n" + human.Wrap(s, "", width))
		}
	}
	para := func(s string) {
		if md {
			b.WriteString(s + "\n")
		} else {
			b.WriteString(human.Wrap(s, "  ", width))
		}
	}
	// list writes rows as a markdown table, or a wrapped line a row, cells joined by sep.
	list := func(rows [][]string, line func(r []string) string) {
		if md {
			table(&b, rows, true)
			return
		}
		for _, r := range rows[1:] {
			b.WriteString(human.Wrap(line(r), "  ", width))
		}
	}
	if md {
		b.WriteString("## " + rep.title() + "\n")
	} else {
		b.WriteString(rep.title() + "\n")
	}
	head("What happened")
	para(inc.Story)
	head("Source")
	link := inc.Link
	if !md && len(link)+2 > width {
		link = "its link is longer than a terminal line: -format markdown or json prints it"
	}
	para(fmt.Sprintf("%s, \"%s\", %s, %s", inc.Organisation, inc.Title, inc.Date, link))
	if md {
		b.WriteString("\n> " + inc.Quote + "\n")
	} else {
		b.WriteString(human.Wrap("\""+inc.Quote+"\"", "    ", width))
	}
	head("The source's numbers beside the replay's")
	rows := [][]string{{"the source gives", "value", "the replay's figure", "value", "held"}}
	for _, n := range rep.Numbers {
		rows = append(rows, []string{n.What, number(n.Value) + " " + n.Unit, n.Replay, strings.TrimSpace(number(n.Replayed) + " " + n.Unit), rep.held(n)})
	}
	if len(rep.Numbers) == 0 {
		para("The source gives no number to set beside the replay's; its mechanism is what the replay holds.")
	} else {
		list(rows, func(r []string) string {
			return fmt.Sprintf("%s: %s. Replay, %s: %s. Held: %s", r[0], r[1], r[2], r[3], r[4])
		})
	}
	head("Assumed (the source does not give them)")
	rows = [][]string{{"setting", "value", ""}}
	for _, a := range inc.Assumptions {
		rows = append(rows, []string{a.Name, a.Value, "assumed"})
	}
	list(rows, func(r []string) string { return r[0] + ": " + r[1] + " (assumed)" })
	head("Outcome: " + inc.Outcome)
	rows = [][]string{{"run", "", "replicates (95% Wilson interval)"}}
	for _, o := range rep.Outcomes {
		role := "the incident"
		if o.Fix {
			role = "fix"
		}
		rows = append(rows, []string{o.Run, role, shareText(o)})
	}
	table(&b, rows, md)
	head("The fix")
	para(inc.FixText)
	head("Scenario files (retrysim " + string(inc.Kind) + " -scenario FILE runs each to the rows below)")
	rows = [][]string{{"run", "command"}}
	for _, r := range inc.Runs {
		cmd := "retrysim " + string(inc.Kind) + " -scenario " + r.Scenario
		if r.Flags != "" {
			cmd += " " + r.Flags
		} else {
			cmd += fmt.Sprintf(" -replicates %d", DefaultReplicates)
		}
		rows = append(rows, []string{r.Name, cmd})
	}
	list(rows, func(r []string) string { return strings.Join(r, ": ") })
	head("Tune")
	para(tuneNote)
	head("The runs")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	runs, err := runsOutput(rep, format)
	if err != nil {
		return err
	}
	_, err = w.Write(runs)
	return err
}

// held says how n is held beside the source's figure: within its tolerance;
// one-sided, consistent only if every replicate was still collapsed at the
// run's end and the source's figure is at least the replay's; or as its Note says.
func (rep *Report) held(n Number) string {
	switch {
	case n.Tolerance > 0:
		return fmt.Sprintf("within %s %s: %s", number(n.Tolerance), n.Unit, n.Note)
	case n.AtLeast:
		o := rep.Outcomes[0]
		verdict := "consistent with"
		if o.Share.N == 0 || o.Share.Count() != o.Share.N || n.Value < n.Replayed {
			verdict = "not consistent with"
		}
		return fmt.Sprintf("one-sided: still collapsed at the run's end, %s %s after the trigger, in %d of %d replicates, "+
			"so the replay's collapse lasts at least the run: %s a duration of at least %s %s, as the source's %s %s is; %s",
			number(n.Replayed), n.Unit, o.Share.Count(), o.Share.N, verdict, number(n.Replayed), n.Unit, number(n.Value), n.Unit, n.Note)
	}
	return n.Note
}

// runsOutput is the runs' rows as the fleet or workers command writes them in format.
func runsOutput(rep *Report, format string) ([]byte, error) {
	if rep.Incident.Kind == Fleet {
		r, err := render.Lookup(render.FleetDoc, format)
		if err != nil {
			return nil, err
		}
		out, _, _, err := r.FleetOutputs(rep.fleetRun(), "", "")
		return out, err
	}
	r, err := render.Lookup(render.WorkersDoc, format)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = r.Runs(&out, rep.workersReport().Runs())
	return out.Bytes(), err
}

// fleetRun is a fleet incident's runs as the fleet command's renderer takes them.
func (rep *Report) fleetRun() render.FleetRun {
	inc := rep.Incident
	cfgs := inc.Configs()
	return render.FleetRun{Replicates: rep.Replicates, Seed: rep.Seed, Configs: cfgs, Results: rep.Fleet,
		Preset: fleetpreset.Preset[fleet.Config]{Name: "incident " + inc.Name, Source: inc.Organisation + ", " + inc.Link,
			Runs: func(time.Duration) []fleet.Config { return cfgs }, Duration: inc.Duration, Replicates: DefaultReplicates}}
}

// workersReport is a workers incident's runs as the workers command's renderer takes them.
func (rep *Report) workersReport() render.WorkersReport {
	out := render.WorkersReport{Replicates: rep.Replicates, Seed: rep.Seed, Title: rep.title()}
	for _, r := range rep.Graph {
		out.Add(r)
	}
	return out
}

// writeCSV writes a row a run's outcome.
func writeCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"incident", "run", "fix", "outcome", "replicates_with_outcome", "replicates_judged", "share", "share_lo", "share_hi", "seed"}); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, o := range rep.Outcomes {
		err := cw.Write([]string{rep.Incident.Name, o.Run, strconv.FormatBool(o.Fix), rep.Incident.Outcome,
			strconv.FormatInt(o.Share.Count(), 10), strconv.FormatInt(o.Share.N, 10), f(o.Share.Value), f(o.Share.Lo), f(o.Share.Hi),
			strconv.FormatUint(rep.Seed, 10)})
		if err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

type jsonOutcome struct {
	Run      string  `json:"run"`
	Fix      bool    `json:"fix"`
	Count    int64   `json:"replicates_with_outcome"`
	Judged   int64   `json:"replicates_judged"`
	Share    float64 `json:"share"`
	Lo       float64 `json:"share_lo"`
	Hi       float64 `json:"share_hi"`
	Scenario string  `json:"scenario"`
}

type jsonNumber struct {
	What      string  `json:"what"`
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"`
	Replay    string  `json:"replay"`
	Replayed  float64 `json:"replayed"`
	Tolerance float64 `json:"tolerance"`
	OneSided  bool    `json:"one_sided"`
	Note      string  `json:"note"`
	Held      string  `json:"held"`
}

type jsonAssumption struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Assumed bool   `json:"assumed"`
}

// jsonReport is the json format's object.
type jsonReport struct {
	Incident    string           `json:"incident"`
	Kind        Kind             `json:"kind"`
	Source      Source           `json:"source"`
	Story       string           `json:"what_happened"`
	Outcome     string           `json:"outcome"`
	Fix         string           `json:"fix"`
	Numbers     []jsonNumber     `json:"numbers"`
	Assumptions []jsonAssumption `json:"assumptions"`
	Outcomes    []jsonOutcome    `json:"outcomes"`
	Replicates  int              `json:"replicates"`
	Seed        uint64           `json:"seed"`
	Tune        string           `json:"tune"`
	Runs        json.RawMessage  `json:"runs"`
}

// writeJSON writes rep as one json object.
func writeJSON(w io.Writer, rep *Report) error {
	inc := rep.Incident
	runs, err := runsOutput(rep, "json")
	if err != nil {
		return err
	}
	j := jsonReport{Incident: inc.Name, Kind: inc.Kind, Story: inc.Story, Outcome: inc.Outcome, Fix: inc.FixText,
		Source:     inc.Source,
		Replicates: rep.Replicates, Seed: rep.Seed, Tune: tuneNote, Runs: bytes.TrimSpace(runs), Numbers: []jsonNumber{}}
	for _, n := range rep.Numbers {
		j.Numbers = append(j.Numbers, jsonNumber{n.What, n.Value, n.Unit, n.Replay, n.Replayed, n.Tolerance, n.AtLeast, n.Note, rep.held(n)})
	}
	for _, a := range inc.Assumptions {
		j.Assumptions = append(j.Assumptions, jsonAssumption{a.Name, a.Value, true})
	}
	for i, o := range rep.Outcomes {
		j.Outcomes = append(j.Outcomes, jsonOutcome{o.Run, o.Fix, o.Share.Count(), o.Share.N, o.Share.Value, o.Share.Lo, o.Share.Hi, inc.Runs[i].Scenario})
	}
	return reportjson.WriteIndented(w, j)
}

// Plot draws rep's runs as the fleet or workers command's -plot does, a
// panel a run, to a .png or .svg (ext).
func Plot(w io.Writer, rep *Report, ext string) error {
	if rep.Incident.Kind == Fleet {
		var runs [][]fleetdata.Point
		for _, r := range rep.Fleet {
			runs = append(runs, fleetrun.Fleet().Series(r))
		}
		title := fmt.Sprintf("retrysim incident %s: %s, means of %s, seed %d", rep.Incident.Name, human.Duration(rep.Incident.Duration),
			human.Count(int64(rep.Replicates), "replicate"), rep.Seed)
		return render.PlotFleet(w, title, runs, rep.Incident.Configs(), ext)
	}
	return render.PlotWorkers(w, rep.workersReport(), ext)
}
