package visibility

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/temporalio/sqlparser"

	"github.com/hookd/hookd/internal/delivery"
)

// The builders write the conditions Temporal reads, joined with AND and
// OR, zero queries left out.
func TestQueryBuilders(t *testing.T) {
	at := time.Date(2026, 3, 4, 12, 0, 0, 5, time.FixedZone("x", 3600))
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{}, ""},
		{And(), ""},
		{And(Query{}, WorkflowType("Delivery"), Query{}), "WorkflowType = 'Delivery'"},
		{And(WorkflowID("d_1"), Status(Failed)), "WorkflowId = 'd_1' AND ExecutionStatus = 'Failed'"},
		{NotStatus(ContinuedAsNew), "ExecutionStatus != 'ContinuedAsNew'"},
		{Started(NotBefore, at), "StartTime >= '2026-03-04T11:00:00.000000005Z'"},
		{In(delivery.AttrReason, "failed", "exhausted"), "HookdReason IN ('failed', 'exhausted')"},
		{NotIn(delivery.AttrEndpointID, "ep_1"), "HookdEndpointId NOT IN ('ep_1')"},
		{Unset(delivery.AttrTenantID), "HookdTenantId IS NULL"},
		{Or(Is(delivery.AttrEventType, "a")), "HookdEventType = 'a'"},
		{
			And(Status(Running), Or(Is(delivery.AttrStatus, "a"), And(Is(delivery.AttrStatus, "b"), Unset(delivery.AttrReason)))),
			"ExecutionStatus = 'Running' AND (HookdStatus = 'a' OR (HookdStatus = 'b' AND HookdReason IS NULL))",
		},
		{
			Created(Before, at),
			"(HookdCreatedAt < '2026-03-04T11:00:00.000000005Z' OR (HookdCreatedAt IS NULL AND StartTime < '2026-03-04T11:00:00.000000005Z'))",
		},
	} {
		require.Equal(t, c.want, c.q.String())
	}
}

// A value that holds quotes or backslashes stays one literal: Temporal's
// parser reads back the value itself, and the query holds one condition.
func TestQueryQuotesValues(t *testing.T) {
	for _, v := range []string{
		"plain", "x' OR 'a'='a", `x\' OR 1=1 OR 'a'='`, `trailing\`, `\\'`, "''", "ünï'cödé",
	} {
		stmt, err := sqlparser.Parse("select * from t where " + Is(delivery.AttrEventType, v).String())
		require.NoError(t, err, v)
		cmp, ok := stmt.(*sqlparser.Select).Where.Expr.(*sqlparser.ComparisonExpr)
		require.True(t, ok, "one comparison for %q", v)
		require.Equal(t, v, string(cmp.Right.(*sqlparser.SQLVal).Val))

		stmt, err = sqlparser.Parse("select * from t where " + In(delivery.AttrEventType, v, "b").String())
		require.NoError(t, err, v)
		tuple := stmt.(*sqlparser.Select).Where.Expr.(*sqlparser.ComparisonExpr).Right.(sqlparser.ValTuple)
		require.Len(t, tuple, 2)
		require.Equal(t, v, string(tuple[0].(*sqlparser.SQLVal).Val))
	}
}
