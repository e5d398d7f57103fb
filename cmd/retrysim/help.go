package main

import (
	"context"
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/scenarioref"
)

// helpTopics are what retrysim help TOPIC prints besides a command's -help.
var helpTopics = map[string]struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}{
	"scenario": {"every key of a -scenario file (-format markdown too)", scenarioHelp},
	"glossary": {"every term an output prints, and what it means", glossaryHelp},
}

const glossaryHelpIntro = `retrysim help glossary prints the glossary: every term an output prints
(a column, a row label, a word of a title), with what it means there, in
markdown. docs/glossary.md is what it prints; each html page holds the
entries of the terms it uses.

Usage: retrysim help glossary [flags]

Flags:
`

// glossaryHelp prints the glossary.
func glossaryHelp(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flagval.NewFlagSet("retrysim help glossary")
	out := outfile.File{Flag: "o"}
	fs.StringVar(&out.Path, "o", "", "write to `file` instead of stdout")
	if err := flagval.Parse(fs, args, glossaryHelpIntro, stdout); err != nil {
		return err
	}
	if err := outfile.Check(out); err != nil {
		return flagval.Usage(err)
	}
	return out.Render(ctx, stdout, func(w io.Writer) error {
		_, err := io.WriteString(w, render.Glossary())
		return err
	})
}

const scenarioHelpIntro = `retrysim help scenario prints every key a scenario file (-scenario FILE) takes:
its type, its default, its bounds, which model reads it and what it means.
docs/scenario.md is its -format markdown.

Usage: retrysim help scenario [flags]

Flags:
`

// scenarioHelp prints the reference of the scenario file's keys.
func scenarioHelp(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flagval.NewFlagSet("retrysim help scenario")
	format := flagval.Choice{V: "text", Valid: func(s string) error {
		if s != "text" && s != "markdown" {
			return fmt.Errorf("unknown format %q (want text or markdown)", s)
		}
		return nil
	}}
	fs.Var(&format, "format", "print the reference as `text` or markdown")
	out := outfile.File{Flag: "o"}
	fs.StringVar(&out.Path, "o", "", "write to `file` instead of stdout")
	if err := flagval.Parse(fs, args, scenarioHelpIntro, stdout); err != nil {
		return err
	}
	if err := outfile.Check(out); err != nil {
		return flagval.Usage(err)
	}
	write := scenarioref.WriteText
	if format.V == "markdown" {
		write = scenarioref.WriteMarkdown
	}
	return out.Render(ctx, stdout, func(w io.Writer) error { return write(w, scenarioref.Keys()) })
}
