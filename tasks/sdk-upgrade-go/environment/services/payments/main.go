// Payments service: what happened to a payment, for the support dashboard.
//
//	GET /healthz                              200 when the service is up
//	GET /version                              the Stripe SDK and API version it uses
//	GET /payments/{paymentIntentId}           one payment: its charge, card and refunds
//	GET /customers/{customerId}/payments      every payment of a customer, with totals
package main

import (
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"os"
	"runtime/debug"
	"strings"

	"github.com/stripe/stripe-go/v72"
	"github.com/stripe/stripe-go/v72/client"
)

// newClient talks to STRIPE_API_BASE when it is set (e.g. http://127.0.0.1:12111).
func newClient() *client.API {
	key := os.Getenv("STRIPE_SECRET_KEY")
	base := strings.TrimRight(os.Getenv("STRIPE_API_BASE"), "/")
	if base == "" {
		return client.New(key, nil)
	}
	config := &stripe.BackendConfig{URL: stripe.String(base)}
	return client.New(key, &stripe.Backends{
		API:     stripe.GetBackendWithConfig(stripe.APIBackend, config),
		Connect: stripe.GetBackendWithConfig(stripe.ConnectBackend, config),
		Uploads: stripe.GetBackendWithConfig(stripe.UploadsBackend, config),
	})
}

var sc = newClient()

// sdkVersion is the stripe-go release this binary was built with.
func sdkVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/stripe/stripe-go/v72" {
				return strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return "unknown"
}

type card struct {
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth uint64 `json:"exp_month"`
	ExpYear  uint64 `json:"exp_year"`
	Funding  string `json:"funding"`
}

type refund struct {
	ID     string  `json:"id"`
	Amount int64   `json:"amount"`
	Status string  `json:"status"`
	Reason *string `json:"reason"`
}

type charge struct {
	ID             string   `json:"id"`
	Amount         int64    `json:"amount"`
	AmountCaptured int64    `json:"amount_captured"`
	Captured       bool     `json:"captured"`
	Paid           bool     `json:"paid"`
	Status         string   `json:"status"`
	ReceiptURL     *string  `json:"receipt_url"`
	AmountRefunded int64    `json:"amount_refunded"`
	Refunded       bool     `json:"refunded"`
	Card           *card    `json:"card"`
	Refunds        []refund `json:"refunds"`
}

type payment struct {
	ID          string  `json:"id"`
	Amount      int64   `json:"amount"`
	Currency    string  `json:"currency"`
	Status      string  `json:"status"`
	Customer    *string `json:"customer"`
	Description *string `json:"description"`
	Charge      *charge `json:"charge"`
}

// orNull: Stripe's null strings arrive as "" in Go.
func orNull(value string) *string {
	if value == "" {
		return nil
	}
	return &value
}

func cardView(ch *stripe.Charge) *card {
	details := ch.PaymentMethodDetails
	if details == nil || details.Type != "card" || details.Card == nil {
		return nil
	}
	c := details.Card
	return &card{Brand: string(c.Brand), Last4: c.Last4, ExpMonth: c.ExpMonth,
		ExpYear: c.ExpYear, Funding: string(c.Funding)}
}

func chargeView(ch *stripe.Charge) *charge {
	if ch == nil {
		return nil
	}
	refunds := []refund{}
	if ch.Refunds != nil {
		for _, r := range ch.Refunds.Data {
			refunds = append(refunds, refund{ID: r.ID, Amount: r.Amount, Status: string(r.Status),
				Reason: orNull(string(r.Reason))})
		}
	}
	return &charge{ID: ch.ID, Amount: ch.Amount, AmountCaptured: ch.AmountCaptured,
		Captured: ch.Captured, Paid: ch.Paid, Status: string(ch.Status),
		ReceiptURL: orNull(ch.ReceiptURL), AmountRefunded: ch.AmountRefunded,
		Refunded: ch.Refunded, Card: cardView(ch), Refunds: refunds}
}

func paymentView(pi *stripe.PaymentIntent) payment {
	// A PaymentIntent lists its charges, the latest first.
	var latest *stripe.Charge
	if pi.Charges != nil && len(pi.Charges.Data) > 0 {
		latest = pi.Charges.Data[0]
	}
	var customer *string
	if pi.Customer != nil {
		customer = &pi.Customer.ID
	}
	return payment{ID: pi.ID, Amount: pi.Amount, Currency: pi.Currency,
		Status: string(pi.Status), Customer: customer, Description: orNull(pi.Description),
		Charge: chargeView(latest)}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func internal(w http.ResponseWriter, err error) {
	writeJSON(w, 500, map[string]string{"error": "internal", "message": err.Error()})
}

func notFound(err error) bool {
	var stripeErr *stripe.Error
	return errors.As(err, &stripeErr) && stripeErr.HTTPStatusCode == http.StatusNotFound
}

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]string{"service": "payments",
			"stripe_sdk": sdkVersion(), "api_version": stripe.APIVersion})
	})
	mux.HandleFunc("GET /payments/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		pi, err := sc.PaymentIntents.Get(id, nil)
		if notFound(err) {
			writeJSON(w, 404, map[string]string{"error": "not_found", "id": id})
			return
		} else if err != nil {
			internal(w, err)
			return
		}
		writeJSON(w, 200, paymentView(pi))
	})
	mux.HandleFunc("GET /customers/{id}/payments", func(w http.ResponseWriter, r *http.Request) {
		customer := r.PathValue("id")
		params := &stripe.PaymentIntentListParams{Customer: stripe.String(customer)}
		params.Limit = stripe.Int64(100)
		payments := []payment{}
		var captured, refunded int64
		it := sc.PaymentIntents.List(params)
		for it.Next() {
			view := paymentView(it.PaymentIntent())
			if view.Charge != nil {
				captured += view.Charge.AmountCaptured
				refunded += view.Charge.AmountRefunded
			}
			payments = append(payments, view)
		}
		if err := it.Err(); err != nil {
			internal(w, err)
			return
		}
		writeJSON(w, 200, map[string]any{"customer": customer, "count": len(payments),
			"captured": captured, "refunded": refunded, "payments": payments})
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "5101"
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, mux))
}
