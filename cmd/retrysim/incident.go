package main

import (
	"context"
	"io"

	"github.com/retrysim/retrysim/incident"
)

// incidentCommand lists the incident gallery or replays one incident: the
// incident package's command.
func incidentCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return incident.Command(ctx, args, stdout, stderr)
}
