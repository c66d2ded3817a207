package apiclient

import (
	"context"
	"net/http"

	"github.com/hookd/hookd/apiclient/wire"
)

// Recovered is the answer to an endpoint recover: the circuit's state
// before it, whether the endpoint was enabled again, and how many waiting
// deliveries were told to try again: all within Spread, or, Paced (a
// backlog too large to signal at once), in the background as fast as
// they drain.
type Recovered struct {
	Raw
	wire.Recovered
}

// RecoverEndpoint tells hookd an endpoint works again: it is enabled, its
// circuit closed and its failure count reset, and every delivery waiting
// on it is attempted within seconds, or a large backlog as fast as it
// drains. reason is recorded with who asked.
func (c *Client) RecoverEndpoint(ctx context.Context, id, reason string) (*Recovered, error) {
	return call[Recovered](ctx, c, http.MethodPost, endpointPath(id)+"/recover", nil, wire.RecoverRequest{Reason: &reason})
}
