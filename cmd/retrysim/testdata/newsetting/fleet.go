package fleet

import "github.com/retrysim/retrysim/internal/decl"

// A client's new setting and an entry's: one declaration each, at the end
// of its table; and a declaration of a field no declared setting held, the memoryless
// mode's retry probability.
func init() {
	params = append(params,
		decl.Param[Config]{Path: "client.spare", Field: func(c *Config) any { return &c.Client.Spare }, Lo: 0, Hi: 100,
			Usage: usage("keep `n` attempts in reserve beyond %s", "client.attempts")},
		decl.Param[Config]{Path: "memoryless.retry_prob", Probability: true, Field: func(c *Config) any { return &c.memoryless.RetryProb },
			Usage: usage("`probability` that a failed attempt is retried while %s allows", "client.attempts")})
	entryParams = append(entryParams, decl.EntryParam[Entry]{Key: "nack", Type: "a probability", Default: "0", Bounds: "0 to 1", Example: "0.05",
		Doc:   "the share of the entry's requests a worker hands back unworked",
		Field: func(e *Entry) any { return &e.Nack }})
}
