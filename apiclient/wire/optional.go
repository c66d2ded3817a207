package wire

// Optional is &v, or nil for T's zero value: a pointer field of a body
// left out when there is nothing to say.
func Optional[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// Deref is *p, or T's zero value for nil: a pointer field left out.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
