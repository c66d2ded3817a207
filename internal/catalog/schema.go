package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaURL is where a compiled schema says it is, in the messages of
// its errors; no schema is ever loaded from it.
const schemaURL = "hookd:schema"

// maxProblems is how many failures of a payload an error names.
const maxProblems = 3

var printer = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema, safe for concurrent use.
type Schema struct{ s *jsonschema.Schema }

// Problem is one way a payload fails its schema: where (a JSON Pointer
// into the payload, "" for the whole of it) and why.
type Problem struct {
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}

func (p Problem) String() string { return fmt.Sprintf("at %q: %s", p.Pointer, p.Reason) }

// noLoader refuses every reference outside the schema itself: a schema
// put through the API must not make hookd read a file or fetch a URL.
type noLoader struct{}

func (noLoader) Load(string) (any, error) {
	return nil, errors.New("references outside the schema are not supported")
}

// CompileSchema compiles a JSON Schema document, an object (the boolean
// schemas true and false are refused: a type without a schema takes any
// payload), draft 2020-12 unless it names another draft in $schema. References ($ref) must stay within the
// document. The error says what is wrong, safe to show whoever wrote it.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, errors.New("must be a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, errors.New(cleanMessage(err))
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, errors.New(cleanMessage(err))
	}
	return &Schema{s: s}, nil
}

// cleanMessage is a compile error's message without the schema's
// internal URL.
func cleanMessage(err error) string {
	var se *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &se) && errors.As(se.Err, &ve) {
		return joinProblems(firstProblems(ve)) // the metaschema's findings, pointing into the schema
	}
	msg := strings.ReplaceAll(err.Error(), schemaURL, "")
	msg = strings.ReplaceAll(msg, `"#`, `"`)
	return strings.TrimSpace(msg)
}

// Validate checks a JSON payload against the schema and returns its first
// failures (at most maxProblems), or none when it matches.
func (s *Schema) Validate(payload []byte) []Problem {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return []Problem{{Reason: "invalid JSON"}}
	}
	err = s.s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Reason: err.Error()}}
	}
	return firstProblems(ve)
}

// firstProblems are the innermost failures of e, which name the values at
// fault, the first maxProblems in pointer order: the validator visits
// properties in no fixed order, so the same payload always gets the same
// answer only once they are sorted.
func firstProblems(e *jsonschema.ValidationError) []Problem {
	var all []Problem
	leaves(e, &all)
	slices.SortStableFunc(all, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return all[:min(len(all), maxProblems)]
}

// maxLeaves bounds the failures firstProblems sorts.
const maxLeaves = 1000

// leaves appends the innermost failures of e, up to maxLeaves.
func leaves(e *jsonschema.ValidationError, out *[]Problem) {
	if len(*out) >= maxLeaves {
		return
	}
	if len(e.Causes) == 0 {
		*out = append(*out, Problem{Pointer: pointer(e.InstanceLocation), Reason: e.ErrorKind.LocalizedString(printer)})
		return
	}
	for _, c := range e.Causes {
		leaves(c, out)
	}
}

// pointer is the JSON Pointer (RFC 6901) of a location's tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(esc.Replace(t))
	}
	return b.String()
}
