package results

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
)

// RaceRow is one mode of the real SQLite check.
type RaceRow struct {
	Mode          string
	Races         int64
	DoubleCharged int64
	Lost          int64
	BusyRetries   int64
	Deliveries    int64
	Crashes       int64
	Refused       int64
	RefusedCodes  []int
	Overlaps      int64
	WallSeconds   float64
	// Sim holds the simulator's rates at the measured overlap and crash
	// rates, when -compare asked for them.
	Sim *RaceSim
}

// RaceSim is the simulator's side of a comparison.
type RaceSim struct {
	// Jobs, DoubleCharged and Lost are the run at the measured rates.
	Jobs          int64
	DoubleCharged int64
	Lost          int64
	// The rates' range over the measured rates' 95% intervals.
	DoubleLo, DoubleHi float64
	LostLo, LostHi     float64
}

// rate is x of n with its Wilson interval, as "12.5% [9.1, 16.9]".
func rate(x, n int64) string {
	if n == 0 {
		return "-"
	}
	w := Wilson(x, n)
	return fmt.Sprintf("%s%% [%s, %s]", sig(100*float64(x)/float64(n)), sig(100*w.Lo), sig(100*w.Hi))
}

// simRate is a simulated rate with its interval widened to the range lo..hi
// it takes over the measured rates' intervals.
func simRate(x, n int64, lo, hi float64) string {
	w := Wilson(x, n)
	return fmt.Sprintf("%s%% [%s, %s]", sig(100*float64(x)/float64(n)), sig(100*min(w.Lo, lo)), sig(100*max(w.Hi, hi)))
}

// Agree reports whether the simulated rates of double charges and lost keys
// fall inside the harness's 95% intervals, or the harness's inside the
// simulator's: its own interval, widened to the range it gives over the
// measured overlap and crash rates' intervals.
func (r RaceRow) Agree() bool {
	if r.Sim == nil {
		return false
	}
	one := func(x, y int64, lo, hi float64) bool {
		real, sim := Wilson(x, r.Races), Wilson(y, r.Sim.Jobs)
		p, q := float64(x)/float64(r.Races), float64(y)/float64(r.Sim.Jobs)
		return real.Lo <= q && q <= real.Hi || min(sim.Lo, lo) <= p && p <= max(sim.Hi, hi)
	}
	return one(r.DoubleCharged, r.Sim.DoubleCharged, r.Sim.DoubleLo, r.Sim.DoubleHi) &&
		one(r.Lost, r.Sim.Lost, r.Sim.LostLo, r.Sim.LostHi)
}

func (r RaceRow) fields() []field {
	codes := make([]string, len(r.RefusedCodes))
	for i, c := range r.RefusedCodes {
		codes[i] = strconv.Itoa(c)
	}
	f := []field{
		{"mode", r.Mode}, {"races", r.Races}, {"double_charged", r.DoubleCharged}, {"lost", r.Lost},
		{"busy_retries", r.BusyRetries}, {"deliveries", r.Deliveries}, {"crashes", r.Crashes},
		{"refused", r.Refused}, {"refused_codes", strings.Join(codes, " ")}, {"overlaps", r.Overlaps},
		{"wall_seconds", r.WallSeconds},
	}
	if s := r.Sim; s != nil {
		f = append(f, field{"sim_jobs", s.Jobs}, field{"sim_double_charged", s.DoubleCharged}, field{"sim_lost", s.Lost},
			field{"sim_double_lo", s.DoubleLo}, field{"sim_double_hi", s.DoubleHi},
			field{"sim_lost_lo", s.LostLo}, field{"sim_lost_hi", s.LostHi}, field{"agree", r.Agree()})
	}
	return f
}

// WriteRace renders the modes of a real run.
func WriteRace(w io.Writer, title string, rows []RaceRow, format string) error {
	switch format {
	case "table", "markdown":
		compare := len(rows) > 0 && rows[0].Sim != nil
		header := []string{"Mode", "Races", "Charged twice", "Lost", "SQLITE_BUSY retries", "Refused (codes)", "Crashes", "Wall"}
		if compare {
			header = append(header, "Overlap", "Twice, real", "Twice, simulated", "Lost, real", "Lost, simulated", "Agree")
		}
		opts := tableOptions(format == "markdown", numberColumns(len(header), 1))
		if format == "markdown" {
			title = "**" + title + "**\n"
		}
		fmt.Fprintln(w, title)
		t := tablewriter.NewTable(w, opts...)
		t.Header(header)
		for _, r := range rows {
			codes := fmt.Sprint(r.RefusedCodes)
			cells := []string{r.Mode, group(r.Races), group(r.DoubleCharged), group(r.Lost), group(r.BusyRetries),
				group(r.Refused) + " " + codes, group(r.Crashes), fmt.Sprintf("%.2f s", r.WallSeconds)}
			if compare {
				agree := "no"
				if r.Agree() {
					agree = "yes"
				}
				cells = append(cells, rate(r.Overlaps, r.Races), rate(r.DoubleCharged, r.Races), simRate(r.Sim.DoubleCharged, r.Sim.Jobs, r.Sim.DoubleLo, r.Sim.DoubleHi),
					rate(r.Lost, r.Races), simRate(r.Sim.Lost, r.Sim.Jobs, r.Sim.LostLo, r.Sim.LostHi), agree)
			}
			if err := t.Append(cells); err != nil {
				return err
			}
		}
		return t.Render()
	case "csv", "json":
		all := make([][]field, len(rows))
		for i, r := range rows {
			all[i] = r.fields()
		}
		if format == "csv" {
			return writeFields(w, all)
		}
		return titledRows(w, title, all)
	}
	return CheckFormat(format)
}
