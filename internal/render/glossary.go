package render

import (
	_ "embed"
	"html"
	"regexp"
	"strings"
)

// glossaryText is the glossary: every term an output prints, with what it
// means there, in markdown; docs/glossary.md is a copy `retrysim help
// glossary` writes.
//
//go:embed glossary.md
var glossaryText string

// Glossary is the glossary's markdown, as docs/glossary.md holds it.
func Glossary() string { return glossaryText }

// glossaryEntry is a term of the glossary and its text, its paragraphs
// each on one line.
type glossaryEntry struct {
	term       string
	paragraphs []string
}

// glossary is the glossary's entries, in its order.
func glossary() []glossaryEntry {
	var out []glossaryEntry
	for _, block := range strings.Split(glossaryText, "\n### ")[1:] {
		term, body, _ := strings.Cut(block, "\n")
		e := glossaryEntry{term: term}
		for _, par := range strings.Split(strings.TrimSpace(body), "\n\n") {
			e.paragraphs = append(e.paragraphs, strings.Join(strings.Fields(par), " "))
		}
		out = append(out, e)
	}
	return out
}

// codeText is markdown's inline code.
var codeText = regexp.MustCompile("`([^`]*)`")

// glossaryHTML is a paragraph of the glossary as html: escaped, its
// inline code in <code>.
func glossaryHTML(par string) string {
	return codeText.ReplaceAllString(html.EscapeString(par), "<code>$1</code>")
}

// pageTerms are the glossary's entries for the terms a page uses: its
// tables' column headers, in the glossary's order.
func pageTerms(p page) []glossaryEntry {
	used := map[string]bool{}
	for _, t := range p.tables {
		for _, h := range t.header {
			used[strings.ToLower(h)] = true
		}
	}
	var out []glossaryEntry
	for _, e := range glossary() {
		if used[strings.ToLower(e.term)] {
			out = append(out, e)
		}
	}
	return out
}
