package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/raceresult"
	"github.com/retrysim/retrysim/internal/stats"
)

// rate is x of n with its Wilson interval, as "12.5% [9.1, 16.9]".
func rate(x, n int64) string {
	if n == 0 {
		return "-"
	}
	w := stats.Wilson(x, n)
	return fmt.Sprintf("%s%% [%s, %s]", sig(100*float64(x)/float64(n)), sig(100*w.Lo), sig(100*w.Hi))
}

// simRate is a simulated rate with its interval widened to lo..hi.
func simRate(x, n int64, lo, hi float64) string {
	w := stats.Wilson(x, n)
	return fmt.Sprintf("%s%% [%s, %s]", sig(100*float64(x)/float64(n)), sig(100*min(w.Lo, lo)), sig(100*max(w.Hi, hi)))
}

// raceFields flattens a mode for csv and json, with the comparison when asked.
func raceFields(r raceresult.Row) []field {
	codes := mapped(r.RefusedCodes, strconv.Itoa)
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

// raceHeader heads the race modes' table, with the comparison's columns when compare.
func raceHeader(compare bool) []string {
	header := []string{"Mode", "Races", "Charged twice", "Lost", "SQLITE_BUSY retries", "Refused (codes)", "Crashes", "Wall"}
	if compare {
		header = append(header, "Overlap", "Twice, real", "Twice, simulated", "Lost, real", "Lost, simulated", "Agree")
	}
	return header
}

// writeRaceTable is the modes of a real run for people, with the comparison when asked.
func writeRaceTable(w io.Writer, title string, rows []raceresult.Row, st tableStyle) error {
	compare := len(rows) > 0 && rows[0].Sim != nil
	header := raceHeader(compare)
	t := newTable(w, st, numberColumns(len(header), 1), 1)
	t.Header(header)
	for _, r := range rows {
		codes := fmt.Sprint(r.RefusedCodes)
		cells := []string{r.Mode, human.Group(r.Races), human.Group(r.DoubleCharged), human.Group(r.Lost), human.Group(r.BusyRetries),
			human.Group(r.Refused) + " " + codes, human.Group(r.Crashes), wallSeconds.text(r.WallSeconds)}
		if compare {
			agree := "no"
			if r.Agree() {
				agree = "yes"
			}
			cells = append(cells, rate(r.Overlaps, r.Races), rate(r.DoubleCharged, r.Races), simRate(r.Sim.DoubleCharged, r.Sim.Jobs, r.Sim.DoubleLo, r.Sim.DoubleHi),
				rate(r.Lost, r.Races), simRate(r.Sim.Lost, r.Sim.Jobs, r.Sim.LostLo, r.Sim.LostHi), agree)
		}
		t.Append(cells)
	}
	return writeTitled(w, st, title, t, "")
}
