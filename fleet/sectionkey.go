package fleet

import "strings"

// SectionKey is p's key in the graph section's mapping named section
// (load, server, outage or client): its Key (the fleet command's flag)
// with _ for -, less the section's name in front (outage_mode is mode),
// and kind for the setting whose Key is the section's name (server.kind,
// whose Key is server).
func (p Param) SectionKey(section string) string {
	k := strings.ReplaceAll(p.Key, "-", "_")
	if k == section {
		return "kind"
	}
	if rest, ok := strings.CutPrefix(k, section+"_"); ok {
		return rest
	}
	return k
}
