// Payments service: what happened to a payment, for the support dashboard.
//
//	GET /healthz                              200 when the service is up
//	GET /version                              the Stripe SDK and API version it uses
//	GET /payments/{paymentIntentId}           one payment: its charge, card and refunds
//	GET /customers/{customerId}/payments      every payment of a customer, with totals
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/stripe/stripe-go/v85"
)

// newClient talks to STRIPE_API_BASE when it is set (e.g. http://127.0.0.1:12111). Every
// request carries stripe-go v85's API version (stripe.APIVersion).
func newClient() *stripe.Client {
	key := os.Getenv("STRIPE_SECRET_KEY")
	base := strings.TrimRight(os.Getenv("STRIPE_API_BASE"), "/")
	if base == "" {
		return stripe.NewClient(key)
	}
	config := &stripe.BackendConfig{URL: stripe.String(base)}
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(config)))
}

var sc = newClient()

type card struct {
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth int64  `json:"exp_month"`
	ExpYear  int64  `json:"exp_year"`
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

func chargeView(ctx context.Context, ch *stripe.Charge) (*charge, error) {
	if ch == nil {
		return nil, nil
	}
	// Since 2022-11-15 a charge no longer embeds its refunds: list them (newest first).
	refunds := []refund{}
	params := &stripe.RefundListParams{Charge: stripe.String(ch.ID)}
	params.Limit = stripe.Int64(100)
	for r, err := range sc.V1Refunds.List(ctx, params).All(ctx) {
		if err != nil {
			return nil, err
		}
		refunds = append([]refund{{ID: r.ID, Amount: r.Amount, Status: string(r.Status),
			Reason: orNull(string(r.Reason))}}, refunds...)
	}
	return &charge{ID: ch.ID, Amount: ch.Amount, AmountCaptured: ch.AmountCaptured,
		Captured: ch.Captured, Paid: ch.Paid, Status: string(ch.Status),
		ReceiptURL: orNull(ch.ReceiptURL), AmountRefunded: ch.AmountRefunded,
		Refunded: ch.Refunded, Card: cardView(ch), Refunds: refunds}, nil
}

// paymentView needs the PaymentIntent's latest_charge expanded: `charges` is gone from
// PaymentIntents since 2022-11-15.
func paymentView(ctx context.Context, pi *stripe.PaymentIntent) (payment, error) {
	latest, err := chargeView(ctx, pi.LatestCharge)
	if err != nil {
		return payment{}, err
	}
	var customer *string
	if pi.Customer != nil {
		customer = &pi.Customer.ID
	}
	return payment{ID: pi.ID, Amount: pi.Amount, Currency: string(pi.Currency),
		Status: string(pi.Status), Customer: customer, Description: orNull(pi.Description),
		Charge: latest}, nil
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
			"stripe_sdk": stripe.ClientVersion, "api_version": stripe.APIVersion})
	})
	mux.HandleFunc("GET /payments/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		params := &stripe.PaymentIntentRetrieveParams{}
		params.AddExpand("latest_charge")
		pi, err := sc.V1PaymentIntents.Retrieve(r.Context(), id, params)
		if notFound(err) {
			writeJSON(w, 404, map[string]string{"error": "not_found", "id": id})
			return
		} else if err != nil {
			internal(w, err)
			return
		}
		view, err := paymentView(r.Context(), pi)
		if err != nil {
			internal(w, err)
			return
		}
		writeJSON(w, 200, view)
	})
	mux.HandleFunc("GET /customers/{id}/payments", func(w http.ResponseWriter, r *http.Request) {
		customer := r.PathValue("id")
		params := &stripe.PaymentIntentListParams{Customer: stripe.String(customer)}
		params.Limit = stripe.Int64(100)
		params.AddExpand("data.latest_charge")
		payments := []payment{}
		var captured, refunded int64
		for pi, err := range sc.V1PaymentIntents.List(r.Context(), params).All(r.Context()) {
			var view payment
			if err == nil {
				view, err = paymentView(r.Context(), pi)
			}
			if err != nil {
				internal(w, err)
				return
			}
			if view.Charge != nil {
				captured += view.Charge.AmountCaptured
				refunded += view.Charge.AmountRefunded
			}
			payments = append(payments, view)
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
