// Package namespace prepares a Temporal namespace for hookd: it registers
// hookd's search attributes and makes the retention at least the dedup
// window, on the embedded server and on an external cluster alike.
package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	namespacepb "go.temporal.io/api/namespace/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/hookd/hookd/internal/delivery"
)

// DefaultRetention is the namespace retention hookd asks for: the window in
// which a re-posted event ID is recognised as a duplicate.
const DefaultRetention = 7 * 24 * time.Hour

// Ensure registers missing search attributes on ns and, when setRetention
// is true, raises its retention to at least retention. Without permission
// to change the namespace it logs the exact commands an admin can run, and
// warns if retention is shorter than the dedup window.
func Ensure(ctx context.Context, c client.Client, ns string, retention time.Duration, setRetention bool, log *slog.Logger) error {
	if err := ensureSearchAttributes(ctx, c, ns, log); err != nil {
		return err
	}
	desc, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: ns})
	if err != nil {
		return fmt.Errorf("describe namespace %s: %w", ns, err)
	}
	current := desc.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration()
	if current >= retention {
		return nil
	}
	if setRetention {
		_, err = c.WorkflowService().UpdateNamespace(ctx, &workflowservice.UpdateNamespaceRequest{
			Namespace: ns,
			Config:    &namespacepb.NamespaceConfig{WorkflowExecutionRetentionTtl: durationpb.New(retention)},
		})
		if err == nil {
			log.Info("namespace retention set", "namespace", ns, "retention", retention)
			return nil
		}
		log.Warn("cannot raise namespace retention", "namespace", ns, "error", err)
	}
	log.Warn("namespace retention is shorter than the dedup window: a re-posted event older than the retention is delivered again",
		"namespace", ns, "retention", current, "dedup_window", retention,
		"fix", fmt.Sprintf("temporal operator namespace update --namespace %s --retention %s", ns, retention))
	return nil
}

func ensureSearchAttributes(ctx context.Context, c client.Client, ns string, log *slog.Logger) error {
	list, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	if err != nil {
		return fmt.Errorf("list search attributes of %s: %w", ns, err)
	}
	missing := delivery.SearchAttributes()
	for name := range list.GetCustomAttributes() {
		delete(missing, name)
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: ns, SearchAttributes: missing})
	var denied *serviceerror.PermissionDenied
	if errors.As(err, &denied) {
		names := make([]string, 0, len(missing))
		for name, typ := range missing {
			names = append(names, "--name "+name+" --type "+typeName(typ))
		}
		sort.Strings(names)
		return fmt.Errorf("register search attributes: permission denied; ask an admin to run: temporal operator search-attribute create --namespace %s %s", ns, strings.Join(names, " "))
	}
	if err != nil {
		return fmt.Errorf("register search attributes on %s: %w", ns, err)
	}
	log.Info("search attributes registered; waiting for the frontend to see them", "namespace", ns, "count", len(missing))
	return awaitSearchAttributes(ctx, c, ns, missing)
}

// awaitSearchAttributes polls until a visibility query naming every new
// attribute is accepted: the frontend caches namespace metadata and only
// sees new attributes after its next refresh.
func awaitSearchAttributes(ctx context.Context, c client.Client, ns string, added map[string]enumspb.IndexedValueType) error {
	var clauses []string
	for name, typ := range added {
		clauses = append(clauses, name+" = "+sampleValue(typ))
	}
	query := strings.Join(clauses, " AND ")
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		_, err := c.WorkflowService().CountWorkflowExecutions(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: ns, Query: query})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("search attributes of %s not visible yet: %w", ns, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// typeName is a search attribute type as the temporal CLI names it.
func typeName(t enumspb.IndexedValueType) string {
	switch t {
	case enumspb.INDEXED_VALUE_TYPE_DATETIME:
		return "Datetime"
	case enumspb.INDEXED_VALUE_TYPE_INT:
		return "Int"
	default:
		return "Keyword"
	}
}

// sampleValue is a literal a query may compare an attribute of type t
// with.
func sampleValue(t enumspb.IndexedValueType) string {
	switch t {
	case enumspb.INDEXED_VALUE_TYPE_DATETIME:
		return "'2000-01-01T00:00:00Z'"
	case enumspb.INDEXED_VALUE_TYPE_INT:
		return "0"
	default:
		return "'x'"
	}
}
