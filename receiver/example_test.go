package receiver_test

import (
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/hookd/hookd/receiver"
	"github.com/hookd/hookd/signing"
)

// A receiver of the default scheme, Standard Webhooks: Middleware
// verifies webhook-signature before the handler runs.
func ExampleNewVerifier() {
	v, err := receiver.NewVerifier([]string{os.Getenv("WEBHOOK_SECRET")})
	if err != nil {
		log.Fatal(err)
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := receiver.FromContext(r.Context())
		fmt.Println("verified", d.ID, d.EventType)
		w.WriteHeader(http.StatusNoContent)
	})
	http.Handle("/webhooks", receiver.Middleware(v, receiver.MiddlewareOptions{})(handler))
}

// A receiver of an hmac-sha256 profile: the Verifier takes the same
// fields as the endpoint's "signing" (MailFrame's contract here).
func ExampleNewProfileVerifier() {
	profile := signing.Profile{
		Scheme:           signing.SchemeHMACSHA256,
		Header:           "MailFrame-Signature",
		Prefix:           "sha256=",
		DeliveryIDHeader: "X-MailFrame-Delivery-Id",
		EventIDHeader:    "X-MailFrame-Event-Id",
		AttemptHeader:    "X-MailFrame-Attempt",
	}
	v, err := receiver.NewProfileVerifier(profile, []string{os.Getenv("WEBHOOK_SECRET")})
	if err != nil {
		log.Fatal(err) // a bad profile names the field: *signing.ProfileError
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := receiver.FromContext(r.Context())
		fmt.Println("verified", d.ID, d.EventID) // from X-MailFrame-Delivery-Id, X-MailFrame-Event-Id
		w.WriteHeader(http.StatusNoContent)
	})
	http.Handle("/mailframe", receiver.Middleware(v, receiver.MiddlewareOptions{})(handler))
}
