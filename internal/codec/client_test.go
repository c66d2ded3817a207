package codec

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/sdk/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/grpc"
)

func TestSummariesStayPlaintext(t *testing.T) {
	key := make([]byte, KeySize)
	_, _ = rand.Read(key)
	c, err := New([][]byte{key}, "default", true)
	require.NoError(t, err)
	var opts client.Options
	c.Apply(&opts)
	require.Len(t, opts.ConnectionOptions.DialOptions, 1, "Apply installs the interceptor")

	// The SDK encodes the summary with the data converter, as it would any
	// payload; the interceptor puts it back in plaintext before sending.
	summary, err := opts.DataConverter.ToPayload("order.created -> ep_1")
	require.NoError(t, err)
	require.Equal(t, EncodingEncrypted, string(summary.Metadata[converter.MetadataEncoding]))
	input, err := opts.DataConverter.ToPayloads("the event")
	require.NoError(t, err)
	req := &workflowservice.StartWorkflowExecutionRequest{UserMetadata: &sdk.UserMetadata{Summary: summary}, Input: input}

	var sent *workflowservice.StartWorkflowExecutionRequest
	invoker := func(_ context.Context, _ string, r, _ any, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
		sent = r.(*workflowservice.StartWorkflowExecutionRequest)
		return nil
	}
	require.NoError(t, c.plainSummaries(context.Background(), "/StartWorkflowExecution", req, nil, nil, invoker))
	var s string
	require.Equal(t, "json/plain", string(sent.UserMetadata.Summary.Metadata[converter.MetadataEncoding]))
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(sent.UserMetadata.Summary, &s))
	require.Equal(t, "order.created -> ep_1", s)
	require.Equal(t, EncodingEncrypted, string(sent.Input.Payloads[0].Metadata[converter.MetadataEncoding]), "the input stays encrypted")
}
