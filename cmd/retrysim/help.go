package main

import (
	"context"
	"embed"
	"io"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/scenarioref"
)

// helpFiles hold each command's -help text above its flags, help/NAME.txt.
//
//go:embed help
var helpFiles embed.FS

// helpText is the -help text of name above its flags, fmt verbs unfilled.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // embedded: a missing file is a build's mistake
	}
	return string(b)
}

// helpTopics are what retrysim help TOPIC prints besides a command's -help.
var helpTopics = map[string]struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}{
	"scenario": {"every key of a -scenario file (-format markdown too)", topicHelp("scenario", func(w io.Writer, format string) error {
		if format == "markdown" {
			return scenarioref.WriteMarkdown(w, scenarioref.Keys())
		}
		return scenarioref.WriteText(w, scenarioref.Keys())
	})},
	"glossary": {"every term an output prints, and what it means", topicHelp("glossary", nil)},
}

// topicHelp is retrysim help NAME: write writes the topic in -format, text or
// markdown (nil: the glossary, with no -format).
func topicHelp(name string, write func(w io.Writer, format string) error) func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return func(ctx context.Context, args []string, stdout, _ io.Writer) error {
		fs := flagval.NewFlagSet("retrysim help " + name)
		format := flagval.Choice{V: "text", Valid: flagval.OneOf("format", "text or markdown", "text", "markdown")}
		topic := func(w io.Writer, _ string) error { _, err := io.WriteString(w, render.Glossary()); return err }
		if write != nil {
			topic = write
			fs.Var(&format, "format", "print the reference as `text` or markdown")
		}
		out := outfile.File{Flag: "o"}
		fs.StringVar(&out.Path, "o", "", "write to `file` instead of stdout")
		if err := flagval.Parse(fs, args, helpText(name), stdout); err != nil {
			return err
		}
		if err := outfile.Check(out); err != nil {
			return flagval.Usage(err)
		}
		return out.Render(ctx, stdout, func(w io.Writer) error { return topic(w, format.V) })
	}
}
