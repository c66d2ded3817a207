package wire

import (
	"bytes"
	"encoding/json"
)

// Patch is a field of a request body that tells three things apart:
// left out (the zero Patch: an update leaves the field as it is), null
// (Null: the update removes it) and a value (Set: it replaces the
// field's). A pointer cannot: nil is both left out and null. The
// generated bodies use it, through overlay.yaml, for the fields whose
// null the API documents (an endpoint's filter, auth, tls, signing and
// rate_limit). A field of this type is left out of the JSON when zero
// (omitzero).
type Patch[T any] struct {
	value T
	state patchState
}

type patchState uint8

const (
	patchAbsent patchState = iota
	patchNull
	patchValue
)

// Set is the Patch giving v.
func Set[T any](v T) Patch[T] { return Patch[T]{value: v, state: patchValue} }

// Null is the Patch sending null.
func Null[T any]() Patch[T] { return Patch[T]{state: patchNull} }

// IsZero reports whether the field is left out; encoding/json's omitzero
// asks it.
func (p Patch[T]) IsZero() bool { return p.state == patchAbsent }

// IsNull reports whether the field is null.
func (p Patch[T]) IsNull() bool { return p.state == patchNull }

// Value is the value given and true, or T's zero value and false for a
// field left out or null.
func (p Patch[T]) Value() (T, bool) { return p.value, p.state == patchValue }

// MarshalJSON encodes null or the value; a field left out is omitted by
// its omitzero tag (alone, it encodes as null).
func (p Patch[T]) MarshalJSON() ([]byte, error) {
	if p.state != patchValue {
		return []byte("null"), nil
	}
	return json.Marshal(p.value)
}

// UnmarshalJSON takes null or a T; encoding/json calls it only for a
// field present in the object, so a field left out stays zero.
func (p *Patch[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*p = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Set(v)
	return nil
}
