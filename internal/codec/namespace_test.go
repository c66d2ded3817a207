package codec_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
	namespacepb "go.temporal.io/api/namespace/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"

	"github.com/hookd/hookd/internal/codec"
)

// namespaces is a frontend holding one namespace's data, as the server
// does (UpdateNamespace merges data entries).
type namespaces struct {
	workflowservice.WorkflowServiceClient
	data      map[string]string
	updateErr error
}

func (n *namespaces) DescribeNamespace(context.Context, *workflowservice.DescribeNamespaceRequest, ...grpc.CallOption) (*workflowservice.DescribeNamespaceResponse, error) {
	return &workflowservice.DescribeNamespaceResponse{NamespaceInfo: &namespacepb.NamespaceInfo{Data: maps.Clone(n.data)}}, nil
}

func (n *namespaces) UpdateNamespace(_ context.Context, r *workflowservice.UpdateNamespaceRequest, _ ...grpc.CallOption) (*workflowservice.UpdateNamespaceResponse, error) {
	if n.updateErr != nil {
		return nil, n.updateErr
	}
	if n.data == nil {
		n.data = map[string]string{}
	}
	maps.Copy(n.data, r.GetUpdateInfo().GetData())
	return &workflowservice.UpdateNamespaceResponse{}, nil
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestCheckNamespaceRecordsAndRefusesAWrongKey(t *testing.T) {
	ctx := context.Background()
	k1, k2, stranger := newKey(t), newKey(t), newKey(t)
	ns := &namespaces{}

	require.NoError(t, newCodec(t, "default", true, k1).CheckNamespace(ctx, ns, quiet), "first start records key 1")
	require.Equal(t, codec.KeyID(k1), ns.data[codec.NamespaceDataKey])

	err := newCodec(t, "default", true, stranger).CheckNamespace(ctx, ns, quiet)
	require.ErrorContains(t, err, "key id "+codec.KeyID(k1)+", which is not configured", "a wrong key stops the start")
	err = newCodec(t, "default", false).CheckNamespace(ctx, ns, quiet)
	require.Error(t, err, "so does turning encryption off without the key")
	require.NoError(t, newCodec(t, "default", false, k1).CheckNamespace(ctx, ns, quiet), "off with the key reads old payloads")

	require.NoError(t, newCodec(t, "default", true, k1, k2).CheckNamespace(ctx, ns, quiet), "a rotation adds key 2")
	require.Equal(t, codec.KeyID(k1)+","+codec.KeyID(k2), ns.data[codec.NamespaceDataKey])

	err = newCodec(t, "default", true, k1).CheckNamespace(ctx, ns, quiet)
	require.ErrorContains(t, err, codec.KeyID(k2), "rolling back past key 2 would orphan its payloads")
	require.NoError(t, newCodec(t, "default", true, k2).CheckNamespace(ctx, ns, quiet), "retiring key 1 is allowed")
}

func TestCheckNamespaceWithoutPermissionToRecord(t *testing.T) {
	ns := &namespaces{updateErr: errors.New("permission denied")}
	require.NoError(t, newCodec(t, "default", true, newKey(t)).CheckNamespace(context.Background(), ns, quiet),
		"an operator-owned namespace only loses the check")
}
