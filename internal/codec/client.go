package codec

import (
	"context"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/sdk/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc"
)

// DataConverter returns the SDK's default data converter with c applied to
// every payload.
func (c *Codec) DataConverter() converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}

// Apply makes a Temporal client (and the workers built on it) encode
// through c: the data converter; the failure converter, whose details and
// also messages and stack traces (EncodeCommonAttributes) go through it;
// and a gRPC interceptor keeping workflow summaries in plaintext.
func (c *Codec) Apply(opts *client.Options) {
	dc := c.DataConverter()
	opts.DataConverter = dc
	opts.FailureConverter = temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
		DataConverter:          dc,
		EncodeCommonAttributes: true,
	})
	opts.ConnectionOptions.DialOptions = append(opts.ConnectionOptions.DialOptions,
		grpc.WithChainUnaryInterceptor(c.plainSummaries))
}

// plainSummaries decodes the summary and details the SDK encoded with the
// data converter when starting a workflow. hookd's summaries hold an event
// type and an endpoint ID, like its search attributes; kept in plaintext,
// they stay readable in workflow lists without a codec.
func (c *Codec) plainSummaries(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var md *sdk.UserMetadata
	switch r := req.(type) {
	case *workflowservice.StartWorkflowExecutionRequest:
		md = r.GetUserMetadata()
	case *workflowservice.SignalWithStartWorkflowExecutionRequest:
		md = r.GetUserMetadata()
	}
	if md != nil {
		for _, p := range []**commonpb.Payload{&md.Summary, &md.Details} {
			if *p == nil {
				continue
			}
			plain, err := c.Decode([]*commonpb.Payload{*p})
			if err != nil {
				return fmt.Errorf("workflow summary: %w", err)
			}
			*p = plain[0]
		}
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}
