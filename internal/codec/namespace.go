package codec

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	namespacepb "go.temporal.io/api/namespace/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// NamespaceDataKey is the namespace data entry in which hookd records the
// IDs of the keys that have encrypted payloads there, in the order they
// started encrypting. Only IDs: they reveal nothing of the keys.
const NamespaceDataKey = "hookd.payload-key-ids"

// CheckNamespace compares c with the keys recorded on namespace ns, so a
// missing or wrong key stops a process at start instead of failing every
// workflow task later: the key that most recently encrypted payloads there
// must be configured. When c encrypts with a key not yet recorded, it
// records it (a failure to record is logged, not fatal: an operator may
// own the namespace).
func (c *Codec) CheckNamespace(ctx context.Context, ws workflowservice.WorkflowServiceClient, log *slog.Logger) error {
	desc, err := ws.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: c.namespace})
	if err != nil {
		return fmt.Errorf("payload keys: describe namespace %s: %w", c.namespace, err)
	}
	recorded := splitIDs(desc.GetNamespaceInfo().GetData()[NamespaceDataKey])
	if n := len(recorded); n > 0 {
		if last := recorded[n-1]; !slices.Contains(c.KeyIDs(), last) {
			return fmt.Errorf("payload keys: namespace %q holds payloads encrypted under key id %s, which is not configured (configured: [%s]); "+
				"a payload key is missing or wrong: configure every key still needed for decryption, oldest first",
				c.namespace, last, strings.Join(c.KeyIDs(), " "))
		}
	}
	id := c.EncryptingKeyID()
	if id == "" || (len(recorded) > 0 && recorded[len(recorded)-1] == id) {
		return nil
	}
	updated := append(slices.DeleteFunc(recorded, func(s string) bool { return s == id }), id)
	_, err = ws.UpdateNamespace(ctx, &workflowservice.UpdateNamespaceRequest{
		Namespace:  c.namespace,
		UpdateInfo: &namespacepb.UpdateNamespaceInfo{Data: map[string]string{NamespaceDataKey: strings.Join(updated, ",")}},
	})
	if err != nil {
		log.Warn("could not record the payload key id on the namespace; start-up cannot detect a wrong key",
			"namespace", c.namespace, "key_id", id, "error", err)
		return nil
	}
	log.Info("payload encryption key recorded", "namespace", c.namespace, "key_id", id)
	return nil
}

func splitIDs(s string) []string {
	var out []string
	for id := range strings.SplitSeq(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}
