package scenario

import "github.com/retrysim/retrysim/fleet"

// Config is fleet.DefaultConfig with each setting the section gives set.
func (f *Fleet) Config() fleet.Config { return f.config }
