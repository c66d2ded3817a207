package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// readBody reads at most limit bytes of the request body, answering 413
// beyond it, and checks it is valid UTF-8 JSON text.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &Error{Code: CodeTooLarge, Message: "request body exceeds " + byteSize(limit)}
	case err != nil:
		return nil, invalid("body", "could not read the request body")
	case !utf8.Valid(body):
		return nil, invalid("body", "not valid UTF-8")
	}
	return body, nil
}

// decodeStrict decodes JSON into v, refusing unknown fields and trailing
// data, and names the offending field in its error.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		return invalid("body", "unexpected data after the JSON object")
	}
	var (
		typeErr *json.UnmarshalTypeError
		synErr  *json.SyntaxError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return invalid(field, "must be %s", jsonKind(typeErr.Type.Kind().String()))
	case errors.As(err, &synErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return invalid("body", "invalid JSON")
	case isUnknownField(err):
		if name := unknownField(err); name != "" {
			return invalid(name, "unknown field")
		}
		return invalid("body", `unknown field ""`)
	default:
		return invalid("body", "invalid JSON: %s", err.Error())
	}
}

// A memberCheck checks the JSON of one member of a body before the body
// decodes: it refuses the member (an error, which names its field and
// wins over any other fault of the body, as the error of a field's own
// UnmarshalJSON does in encoding/json), or passes it as it is (nil, nil),
// or as the JSON it returns, which the generated type can hold.
type memberCheck func(member []byte) ([]byte, error)

// decodeChecked is decodeStrict for a JSON object whose members named in
// checks (matched as encoding/json matches field names, ignoring case)
// are first checked, in the document's order, by their memberCheck.
func decodeChecked(body []byte, checks map[string]memberCheck, v any) error {
	var obj json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&obj); err != nil {
		return decodeStrict(body, v) // not JSON: decodeStrict names the fault
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return decodeStrict(body, v)
	}
	checked := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		var member json.RawMessage
		if err != nil || !ok || dec.Decode(&member) != nil {
			return decodeStrict(body, v)
		}
		if check := checkOf(checks, name); check != nil {
			passed, err := check(member)
			if err != nil {
				return err
			}
			if passed != nil {
				member = passed
			}
		}
		key, _ := json.Marshal(name)
		if len(checked) > 1 {
			checked = append(checked, ',')
		}
		checked = append(append(append(checked, key...), ':'), member...)
	}
	if err := decodeStrict(append(checked, '}'), v); err != nil {
		return err
	}
	return decodeStrict(body, new(json.RawMessage)) // data after the object
}

// checkOf is the check of the member name, nil for none.
func checkOf(checks map[string]memberCheck, name string) memberCheck {
	for field, check := range checks {
		if strings.EqualFold(field, name) {
			return check
		}
	}
	return nil
}

// checkObject checks the JSON of a body's object field (null too when
// nullable) by decoding it into v, a generated type of strings, refusing
// unknown members: a bad member is named "<field>.<member>", anything
// but an object is the field with notObject.
func checkObject(b []byte, field, notObject string, nullable bool, v any) ([]byte, error) {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		if nullable {
			return nil, nil
		}
		return nil, invalid(field, "%s", notObject)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return nil, invalid(field+"."+typeErr.Field, "must be a string")
	case isUnknownField(err):
		return nil, invalid(field+"."+unknownField(err), "unknown field")
	default:
		return nil, invalid(field, "%s", notObject)
	}
}

// isUnknownField reports whether err is a decoder's refusal of an
// unknown member (json.Decoder.DisallowUnknownFields).
func isUnknownField(err error) bool {
	return strings.HasPrefix(err.Error(), "json: unknown field ")
}

// unknownField is the member an isUnknownField error names.
func unknownField(err error) string {
	return strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
}

func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	default:
		return "a number"
	}
}

func byteSize(n int64) string {
	if n%1024 == 0 {
		return itoa(n/1024) + " KiB"
	}
	return itoa(n) + " bytes"
}
