package apiclient

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hookd/hookd/apiclient/internal/wire"
)

// jsonFields lists the JSON names of t's fields, those of embedded
// structs included.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, jsonFields(f.Type)...)
		case tag != "":
			names = append(names, tag)
		default:
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Each answer type of apiclient carries exactly the fields the OpenAPI
// document gives its schema (apiclient/internal/wire, generated from
// it): a field added to or dropped from the document fails here until
// apiclient follows.
func TestAnswerTypesMatchTheDocument(t *testing.T) {
	for _, c := range []struct {
		ours, doc any
	}{
		{Tenant{}, wire.Tenant{}},
		{TenantPage{}, wire.TenantPage{}},
		{TenantToken{}, wire.TenantToken{}},
		{RevokedTokens{}, wire.RevokedTokens{}},
		{Endpoint{}, wire.Endpoint{}},
		{EndpointPage{}, wire.EndpointPage{}},
		{RotatedSecret{}, wire.RotatedSecret{}},
		{Recovered{}, wire.Recovered{}},
		{EventResult{}, wire.EventAccepted{}},
		{DeliveryRef{}, wire.EventDelivery{}},
		{EventRecord{}, wire.EventRecord{}},
		{EventDelivery{}, wire.EventRecordDelivery{}},
		{EventPage{}, wire.EventPage{}},
		{Delivery{}, wire.Delivery{}},
		{Attempt{}, wire.TimelineEntry{}},
		{Redrive{}, wire.Redrive{}},
		{DeliveryRow{}, wire.DeliveryRow{}},
		{DeliveryPage{}, wire.DeliveryPage{}},
		{DeadLetterRef{}, wire.DeadLetterRow{}},
		{DeadLetter{}, wire.DeadLetter{}},
		{DeadLetterPage{}, wire.DeadLetterPage{}},
		{DeadLetterSummary{}, wire.DeadLetterSummary{}},
		{SummaryGroup{}, wire.SummaryGroup{}},
		{RedriveRequested{}, wire.RedriveRequested{}},
		{RedriveStarted{}, wire.RedriveStarted{}},
		{RedriveJob{}, wire.RedriveJob{}},
		{Error{}, wire.ErrorDetail{}},
		{PortalSettings{}, wire.PortalSettings{}},
		{TenantPortalBranding{}, wire.TenantPortalBranding{}},
		{EventType{}, wire.CatalogType{}},
		{EventTypePage{}, wire.EventTypePage{}},
		{Warning{}, wire.Warning{}},
		{SchemaProblem{}, wire.SchemaProblem{}},
	} {
		ours, doc := reflect.TypeOf(c.ours), reflect.TypeOf(c.doc)
		if got, want := jsonFields(ours), jsonFields(doc); !slices.Equal(got, want) {
			t.Errorf("apiclient.%s has fields %v; the document's %s has %v", ours.Name(), got, doc.Name(), want)
		}
	}
}
