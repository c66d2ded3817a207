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
		apiErr  *Error
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr): // a field's own UnmarshalJSON
		return apiErr
	case errors.As(err, &typeErr):
		// An embedded struct's field is named after its type too.
		field := strings.TrimPrefix(typeErr.Field, "endpointPatch.")
		if field == "" {
			field = "body"
		}
		return invalid(field, "must be %s", jsonKind(typeErr.Type.Kind().String()))
	case errors.As(err, &synErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return invalid("body", "invalid JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		if name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`); name != "" {
			return invalid(name, "unknown field")
		}
		return invalid("body", `unknown field ""`)
	default:
		return invalid("body", "invalid JSON: %s", err.Error())
	}
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
