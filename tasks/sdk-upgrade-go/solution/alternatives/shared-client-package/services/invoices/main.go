// Invoices service: is an invoice paid, and by which payment? For the billing team.
//
//	GET /healthz                                 200 when the service is up
//	GET /version                                 the Stripe SDK and API version it uses
//	GET /invoices/{invoiceId}/payment-status     one invoice's payment status
//	GET /customers/{customerId}/invoices         every invoice of a customer, with totals
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"os"

	"backoffice/internal/stripeclient"
	"github.com/stripe/stripe-go/v85"
)

var sc = stripeclient.New()

type paymentView struct {
	PaymentIntent  string `json:"payment_intent"`
	Status         string `json:"status"`
	Amount         int64  `json:"amount"`
	AmountReceived int64  `json:"amount_received"`
}

type invoiceStatus struct {
	ID              string       `json:"id"`
	Number          *string      `json:"number"`
	Customer        *string      `json:"customer"`
	Status          string       `json:"status"`
	Paid            bool         `json:"paid"`
	Currency        string       `json:"currency"`
	AmountDue       int64        `json:"amount_due"`
	AmountPaid      int64        `json:"amount_paid"`
	AmountRemaining int64        `json:"amount_remaining"`
	PaidAt          *int64       `json:"paid_at"`
	Payment         *paymentView `json:"payment"`
}

// orNull: Stripe's null strings arrive as "" in Go.
func orNull(value string) *string {
	if value == "" {
		return nil
	}
	return &value
}

// payingIntent is the invoice's payment: the one that paid it, else its default one (what
// the invoice's `payment_intent` named before 2025-03-31.basil removed it).
func payingIntent(ctx context.Context, invoiceID string) (*stripe.PaymentIntent, error) {
	params := &stripe.InvoicePaymentListParams{Invoice: stripe.String(invoiceID)}
	params.Limit = stripe.Int64(100)
	params.AddExpand("data.payment.payment_intent")
	var paid, byDefault *stripe.InvoicePayment
	for record, err := range sc.V1InvoicePayments.List(ctx, params).All(ctx) {
		if err != nil {
			return nil, err
		}
		if record.Status == "paid" && paid == nil {
			paid = record
		}
		if record.IsDefault && byDefault == nil {
			byDefault = record
		}
	}
	chosen := paid
	if chosen == nil {
		chosen = byDefault
	}
	if chosen == nil || chosen.Payment == nil {
		return nil, nil
	}
	return chosen.Payment.PaymentIntent, nil
}

func statusView(ctx context.Context, inv *stripe.Invoice) (invoiceStatus, error) {
	intent, err := payingIntent(ctx, inv.ID)
	if err != nil {
		return invoiceStatus{}, err
	}
	// `paid` was removed in 2025-03-31.basil: the status says it.
	view := invoiceStatus{ID: inv.ID, Number: orNull(inv.Number), Status: string(inv.Status),
		Paid: inv.Status == stripe.InvoiceStatusPaid, Currency: string(inv.Currency), AmountDue: inv.AmountDue,
		AmountPaid: inv.AmountPaid, AmountRemaining: inv.AmountRemaining}
	if inv.Customer != nil {
		view.Customer = &inv.Customer.ID
	}
	if inv.StatusTransitions.PaidAt != 0 {
		view.PaidAt = &inv.StatusTransitions.PaidAt
	}
	if intent != nil {
		view.Payment = &paymentView{PaymentIntent: intent.ID, Status: string(intent.Status),
			Amount: intent.Amount, AmountReceived: intent.AmountReceived}
	}
	return view, nil
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
		writeJSON(w, 200, map[string]string{"service": "invoices",
			"stripe_sdk": stripe.ClientVersion, "api_version": stripe.APIVersion})
	})
	mux.HandleFunc("GET /invoices/{id}/payment-status", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		inv, err := sc.V1Invoices.Retrieve(r.Context(), id, nil)
		if notFound(err) {
			writeJSON(w, 404, map[string]string{"error": "not_found", "id": id})
			return
		} else if err != nil {
			internal(w, err)
			return
		}
		view, err := statusView(r.Context(), inv)
		if err != nil {
			internal(w, err)
			return
		}
		writeJSON(w, 200, view)
	})
	mux.HandleFunc("GET /customers/{id}/invoices", func(w http.ResponseWriter, r *http.Request) {
		customer := r.PathValue("id")
		params := &stripe.InvoiceListParams{Customer: stripe.String(customer)}
		params.Limit = stripe.Int64(100)
		views := []invoiceStatus{}
		paid, unpaid, outstanding := 0, 0, int64(0)
		for inv, err := range sc.V1Invoices.List(r.Context(), params).All(r.Context()) {
			if err == nil && inv.Status == stripe.InvoiceStatusDraft {
				continue
			}
			var view invoiceStatus
			if err == nil {
				view, err = statusView(r.Context(), inv)
			}
			if err != nil {
				internal(w, err)
				return
			}
			if view.Paid {
				paid++
			} else {
				unpaid++
			}
			if view.Status == "open" {
				outstanding += view.AmountRemaining
			}
			views = append(views, view)
		}
		writeJSON(w, 200, map[string]any{"customer": customer, "paid": paid, "unpaid": unpaid,
			"outstanding": outstanding, "invoices": views})
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "5102"
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, mux))
}
