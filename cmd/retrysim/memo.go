package main

import (
	"fmt"
	"strings"
	"sync"
)

// engineMemo, which only the command's tests set, keeps what an engine
// returned for its inputs for the life of the test binary, so that the
// tests that read the README's commands (their transcripts, their tables'
// width, the files they write, their html pages) simulate each once: an
// engine's result is a function of its inputs, and the renderers only read
// it. Nil in the command, which runs every engine as called.
var engineMemo *memo

// memo is what engines returned, by their inputs as fmt's %#v prints them.
type memo struct {
	mu   sync.Mutex
	runs map[string]any
}

// memoized is run's result, taken from engineMemo when it holds one for
// inputs, and kept there when it is set. Inputs that hold an address (a
// pointer, a function, a channel) are not keys: %#v prints the address,
// not what is behind it, so two such inputs could look alike and differ.
func memoized[T any](inputs any, run func() (T, error)) (T, error) {
	if engineMemo == nil {
		return run()
	}
	key := fmt.Sprintf("%T %#v", inputs, inputs)
	if strings.Contains(key, ")(0x") {
		return run()
	}
	engineMemo.mu.Lock()
	v, ok := engineMemo.runs[key]
	engineMemo.mu.Unlock()
	if ok {
		return v.(T), nil
	}
	res, err := run()
	if err == nil {
		engineMemo.mu.Lock()
		engineMemo.runs[key] = res
		engineMemo.mu.Unlock()
	}
	return res, err
}
