// Package decl holds the declarations of the job and delivery models'
// settings: each setting of a step and of the queue declared once, with its
// name, keys, meaning, bounds and field, which shards, scenario files,
// Override, sweeps, the command's flags and help and Check all read.
package decl
