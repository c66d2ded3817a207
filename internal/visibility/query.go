package visibility

import (
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/internal/delivery"
)

// Query is a Temporal visibility query, built from conditions with every
// value quoted here. The zero Query has no condition: it selects every
// execution.
type Query struct {
	s     string
	terms int // the conditions s joins with AND
}

// String is the query as Temporal reads it ("" for the zero Query).
func (q Query) String() string { return q.s }

// IsZero says whether q has no condition.
func (q Query) IsZero() bool { return q.s == "" }

// And is every one of qs, zero ones left out: the zero Query if all are.
func And(qs ...Query) Query {
	var parts []string
	terms := 0
	for _, q := range qs {
		if !q.IsZero() {
			parts = append(parts, q.s)
			terms += q.terms
		}
	}
	return Query{strings.Join(parts, " AND "), terms}
}

// Or is any one of qs, zero ones left out; in parentheses, and each of
// several conditions in its own, when there are two or more.
func Or(qs ...Query) Query {
	var parts []string
	for _, q := range qs {
		switch {
		case q.IsZero():
		case q.terms > 1:
			parts = append(parts, "("+q.s+")")
		default:
			parts = append(parts, q.s)
		}
	}
	if len(parts) < 2 {
		return And(qs...)
	}
	return cond("(" + strings.Join(parts, " OR ") + ")")
}

// cond is one condition.
func cond(s string) Query { return Query{s, 1} }

// Op compares a time or a value in a condition.
type Op string

// The comparisons of times.
const (
	Before    Op = "<"
	NotAfter  Op = "<="
	NotBefore Op = ">="
	After     Op = ">"
)

// ExecutionStatus is a workflow execution's status as visibility names
// it.
type ExecutionStatus string

// The statuses hookd's queries name.
const (
	Running        ExecutionStatus = "Running"
	Completed      ExecutionStatus = "Completed"
	Failed         ExecutionStatus = "Failed"
	ContinuedAsNew ExecutionStatus = "ContinuedAsNew"
)

// WorkflowType selects the executions of one workflow type.
func WorkflowType(name string) Query { return equal("WorkflowType", name) }

// WorkflowID selects the runs of one workflow ID.
func WorkflowID(id string) Query { return equal("WorkflowId", id) }

// Status selects the executions in status st.
func Status(st ExecutionStatus) Query { return equal("ExecutionStatus", string(st)) }

// NotStatus selects the executions in any status but st.
func NotStatus(st ExecutionStatus) Query {
	return cond("ExecutionStatus != " + quote(string(st)))
}

// Started selects the executions whose start compares with t by op.
func Started(op Op, t time.Time) Query { return compareTime("StartTime", op, t) }

// Executes selects the executions whose execution time (the start, or
// when a start delay ends) compares with t by op.
func Executes(op Op, t time.Time) Query { return compareTime("ExecutionTime", op, t) }

// Is selects the executions whose keyword attribute key is v.
func Is(key temporal.SearchAttributeKeyKeyword, v string) Query { return equal(key.GetName(), v) }

// In selects the executions whose keyword attribute key is one of vs.
func In(key temporal.SearchAttributeKeyKeyword, vs ...string) Query {
	return cond(key.GetName() + " IN (" + quoteAll(vs) + ")")
}

// NotIn selects the executions whose keyword attribute key is none of
// vs.
func NotIn(key temporal.SearchAttributeKeyKeyword, vs ...string) Query {
	return cond(key.GetName() + " NOT IN (" + quoteAll(vs) + ")")
}

// Unset selects the executions that do not carry the keyword attribute
// key.
func Unset(key temporal.SearchAttributeKeyKeyword) Query {
	return cond(key.GetName() + " IS NULL")
}

// Created selects the deliveries whose creation compares with t by op:
// delivery.AttrCreatedAt, or for a run from before that attribute its
// start.
func Created(op Op, t time.Time) Query {
	name := delivery.AttrCreatedAt.GetName()
	return Or(compareTime(name, op, t), And(cond(name+" IS NULL"), Started(op, t)))
}

func equal(name, v string) Query { return cond(name + " = " + quote(v)) }

func compareTime(name string, op Op, t time.Time) Query {
	return cond(name + " " + string(op) + " " + quote(t.UTC().Format(time.RFC3339Nano)))
}

// quote is v as a string literal of the visibility query language, which
// reads a backslash as an escape: v's backslashes and single quotes are
// escaped, so no value can end its literal early.
func quote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

func quoteAll(vs []string) string {
	quoted := make([]string, len(vs))
	for i, v := range vs {
		quoted[i] = quote(v)
	}
	return strings.Join(quoted, ", ")
}
