package enum

// Names are the values' names, in order: a fresh slice.
func (e Enum[T]) Names() []string { return append([]string(nil), e.names...) }
