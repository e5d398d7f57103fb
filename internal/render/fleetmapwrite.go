package render

import (
	"fmt"
	"io"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/internal/stats"
)

// MapOutputs are fleet-map's document in r's format and its picture
// (plotExt "": none) of map m's cells with each one's observations obs, and
// the rows -require judges.
func (r Renderer) MapOutputs(m metastable.Map, cells []fleet.Config, obs [][]stats.Observation, replicates int, seed uint64, plotExt string) (out, pic []byte, rows []Figures, err error) {
	done := make([]metastable.MapCell, len(cells))
	for i := range cells {
		done[i] = metastable.MapCell{Config: cells[i], Observations: obs[i]}
	}
	rep := MapReport{Map: m, Cells: done, Replicates: replicates, Seed: seed,
		Title: fmt.Sprintf("retrysim fleet-map: %d cells x %d replicates, seed %d", len(done), replicates, seed)}
	out, _, pic, err = r.Outputs(rep.report(), "", nil, plotExt, func(w io.Writer, ext string) error { return PlotMap(w, rep, ext) })
	return out, pic, rep.MapFigures(), err
}
