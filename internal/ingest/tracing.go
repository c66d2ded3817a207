package ingest

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/internal/store"
)

// claim claims the event record, in a span when tracing is on. The span
// names the event and its fan-out, never the payload; a failure's status
// says only that the claim failed (the store's error stays in the log).
func (p *Publisher) claim(ctx context.Context, rec *store.Event) (*store.Event, bool, error) {
	if p.Tracer == nil {
		return p.Records.ClaimEvent(ctx, rec)
	}
	ctx, span := p.Tracer.Start(ctx, "hookd.event.claim", trace.WithAttributes(
		attribute.String("hookd.event.id", rec.ID),
		attribute.String("hookd.event.type", rec.Type),
		attribute.Int("hookd.deliveries", len(rec.Deliveries)),
	))
	defer span.End()
	got, claimed, err := p.Records.ClaimEvent(ctx, rec)
	span.SetAttributes(attribute.Bool("hookd.event.claimed", claimed))
	if err != nil {
		span.SetStatus(codes.Error, "claim event record failed")
	}
	return got, claimed, err
}
