// Package contentfilter compiles and evaluates endpoints' content filters:
// CEL expressions (https://cel.dev) over an event's type, tenant_id,
// event_id and payload that decide, at fan-out, whether an endpoint the
// event's type matched receives it.
//
// An expression is compiled and type-checked once, when the endpoint is
// created or changed (the API refuses one that does not compile) and
// again when a process loads the endpoint into its matching cache; each
// event only evaluates the compiled Program, under a cost limit. An
// evaluation that fails (a missing key, a type mismatch, the cost limit)
// is a non-match with a Reason, never an error of the event.
package contentfilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// MaxSize is the longest expression, in bytes.
const MaxSize = 2 << 10

// CostLimit bounds one evaluation in CEL's cost units (about one per
// operation, more for operations on long strings and lists). A filter
// comparing a few fields costs under 20; one that scans a list of a
// thousand elements, a few thousand.
const CostLimit = 10_000

// Reasons an evaluation did not match for a failure rather than a false:
// the bounded label values of hookd_filter_errors_total.
const (
	ReasonNoSuchKey  = "no_such_key" // a field the payload does not have
	ReasonType       = "type"        // an operation on a value of the wrong type
	ReasonCostLimit  = "cost_limit"  // the evaluation exceeded CostLimit
	ReasonNotBool    = "not_bool"    // a dyn expression that did not yield a bool
	ReasonPayload    = "payload"     // the payload could not be read as JSON
	ReasonInvalid    = "invalid"     // a stored expression that no longer compiles
	ReasonEvalFailed = "error"       // any other evaluation error
)

var env = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("type", cel.StringType),
		cel.Variable("tenant_id", cel.StringType),
		cel.Variable("event_id", cel.StringType),
		cel.Variable("payload", cel.MapType(cel.StringType, cel.DynType)),
		cel.ParserExpressionSizeLimit(MaxSize),
	)
})

// Program is a compiled filter, safe for concurrent use.
type Program struct {
	expr string
	prg  cel.Program
}

// Expression is the source the program was compiled from.
func (p *Program) Expression() string { return p.expr }

// Error is an expression refused at compile time; its message is CEL's,
// positions included, and safe to show whoever wrote the expression.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// Compile parses and type-checks expr. An expression that is too long,
// does not parse, does not type-check or does not yield a bool is an
// *Error.
func Compile(expr string) (*Program, error) {
	if len(expr) > MaxSize {
		return nil, &Error{Message: fmt.Sprintf("must be at most %d bytes", MaxSize)}
	}
	if strings.TrimSpace(expr) == "" {
		return nil, &Error{Message: "is empty"}
	}
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("content filter environment: %w", err)
	}
	ast, iss := e.Compile(expr)
	if iss.Err() != nil {
		return nil, &Error{Message: iss.Err().Error()}
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
		return nil, &Error{Message: fmt.Sprintf("must yield a bool, not %s", out)}
	}
	prg, err := e.Program(ast, cel.CostLimit(CostLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, &Error{Message: err.Error()}
	}
	return &Program{expr: expr, prg: prg}, nil
}

// Event is what a filter sees of an event. Payload is its JSON, parsed
// once for every filter of the event by ParsePayload.
type Event struct {
	ID, Type, TenantID string
	Payload            map[string]any
}

// ParsePayload reads an event's JSON body for filters. Integers in int64's
// range stay integers; other numbers are doubles.
// A body that is not a JSON object is an error: filters see payload as a
// map.
func ParsePayload(body string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("payload is not a JSON object")
	}
	numbers(m)
	return m, nil
}

// numbers replaces the json.Numbers in v, in place, by int64 or float64, so CEL compares them as numbers.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// Match evaluates the filter on ev. A failed evaluation is a non-match
// with the reason (one of the Reason constants); a false is "", false.
func (p *Program) Match(ev Event) (matched bool, reason string) {
	out, _, err := p.prg.Eval(map[string]any{
		"type": ev.Type, "tenant_id": ev.TenantID, "event_id": ev.ID, "payload": ev.Payload,
	})
	if err != nil {
		return false, reasonOf(err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, ReasonNotBool
	}
	return bool(b), ""
}

// reasonOf classifies an evaluation error. Messages are matched, never
// logged: one may quote a payload's value.
func reasonOf(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "cost limit exceeded"):
		return ReasonCostLimit
	case strings.Contains(msg, "no such key"), strings.Contains(msg, "no such attribute"), strings.Contains(msg, "no such field"):
		return ReasonNoSuchKey
	case strings.Contains(msg, "no such overload"), strings.Contains(msg, "no matching overload"), strings.Contains(msg, "unsupported"):
		return ReasonType
	}
	return ReasonEvalFailed
}
