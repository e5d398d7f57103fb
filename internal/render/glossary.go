package render

import (
	_ "embed"
	"regexp"
	"slices"
	"strings"
)

// glossaryText is the glossary's source in markdown, less the columns'
// own entries.
//
//go:embed glossary.md
var glossaryText string

// Glossary is docs/glossary.md: its source's entries and the columns', alphabetically.
func Glossary() string {
	blocks := strings.Split(glossaryText, "\n### ") // the text before the first entry, then "Term\nbody\n" each
	// the entries every kind's columns declare
	for _, e := range slices.Concat(fleetColumns.glosses(), graphColumns.glosses(), workersColumns.glosses(), mapColumns.glosses()) {
		at := 1 + len(blocks[1:])
		for i, b := range blocks[1:] {
			if term, _, _ := strings.Cut(b, "\n"); strings.ToLower(term) > strings.ToLower(e.term) {
				at = 1 + i
				break
			}
		}
		blocks = slices.Insert(blocks, at, e.term+"\n"+indentWrap(e.paragraphs[0], 95, "")+"\n")
	}
	return strings.Join(blocks, "\n### ")
}

// glossaryEntry is a term of the glossary and its paragraphs, each on one line.
type glossaryEntry struct {
	term       string
	paragraphs []string
}

// glossary is the glossary's entries, in its order.
func glossary() []glossaryEntry {
	var out []glossaryEntry
	for _, block := range strings.Split(Glossary(), "\n### ")[1:] {
		term, body, _ := strings.Cut(block, "\n")
		e := glossaryEntry{term: term}
		for _, par := range strings.Split(strings.TrimSpace(body), "\n\n") {
			e.paragraphs = append(e.paragraphs, strings.Join(strings.Fields(par), " "))
		}
		out = append(out, e)
	}
	return out
}

// codeText is markdown's inline code, which a page writes in <code>.
var codeText = regexp.MustCompile("`([^`]*)`")

// pageTerms are the glossary's entries for a page's column headers, in its order.
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
