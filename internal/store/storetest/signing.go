package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

// testSigningProfile checks an endpoint's signing profile: the zero
// profile (Standard Webhooks) unless set, kept field for field by create,
// get, list and matching, and replaced by update.
func testSigningProfile(t *testing.T, s store.Store) {
	ctx := context.Background()
	profile := signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "MailFrame-Signature", Prefix: "sha256=",
		Encoding: signing.EncodingHex, Content: signing.ContentBody, TimestampHeader: "webhook-timestamp",
		DeliveryIDHeader: "X-MailFrame-Delivery-Id", EventIDHeader: "X-MailFrame-Event-Id",
		EventTypeHeader: "hookd-event-type", AttemptHeader: "X-MailFrame-Attempt"}
	plain := newEndpoint("ep_sign_plain", 0, "sign.*")
	create(t, s, plain)
	custom := newEndpoint("ep_sign_custom", time.Second, "sign.*")
	custom.Signing = profile
	create(t, s, custom)

	got, err := s.GetEndpoint(ctx, plain.ID)
	require.NoError(t, err)
	require.Equal(t, signing.Profile{}, got.Signing, "Standard Webhooks unless set")
	got, err = s.GetEndpoint(ctx, custom.ID)
	require.NoError(t, err)
	require.Equal(t, profile, got.Signing)

	listed, _, err := s.ListEndpoints(ctx, store.TenantFilter{}, store.Page{})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	require.Equal(t, signing.Profile{}, listed[0].Signing)
	require.Equal(t, profile, listed[1].Signing)

	matched, err := s.MatchingEndpoints(ctx, "", "sign.created")
	require.NoError(t, err)
	require.Len(t, matched, 2)

	changed := *custom
	changed.Signing = signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "Postfleet-Signature", Encoding: signing.EncodingBase64,
		Content: signing.ContentTimestampBody, TimestampHeader: "Postfleet-Timestamp", DeliveryIDHeader: "webhook-id",
		EventIDHeader: "hookd-event-id", EventTypeHeader: "hookd-event-type", AttemptHeader: "hookd-attempt"}
	changed.UpdatedAt = at(time.Hour)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, custom.ID)
	require.NoError(t, err)
	require.Equal(t, changed.Signing, got.Signing, "an update replaces it")
	changed.Signing = signing.StandardWebhooks
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	got, err = s.GetEndpoint(ctx, custom.ID)
	require.NoError(t, err)
	require.Equal(t, signing.StandardWebhooks, got.Signing, "and back to Standard Webhooks")
}
