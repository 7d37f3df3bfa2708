// Invoices service: is an invoice paid, and by which payment? For the billing team.
//
//	GET /healthz                                 200 when the service is up
//	GET /version                                 the Stripe SDK and API version it uses
//	GET /invoices/{invoiceId}/payment-status     one invoice's payment status
//	GET /customers/{customerId}/invoices         every invoice of a customer, with totals
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

func statusView(inv *stripe.Invoice) invoiceStatus {
	view := invoiceStatus{ID: inv.ID, Number: orNull(inv.Number), Status: string(inv.Status),
		Paid: inv.Paid, Currency: string(inv.Currency), AmountDue: inv.AmountDue,
		AmountPaid: inv.AmountPaid, AmountRemaining: inv.AmountRemaining}
	if inv.Customer != nil {
		view.Customer = &inv.Customer.ID
	}
	if inv.StatusTransitions.PaidAt != 0 {
		view.PaidAt = &inv.StatusTransitions.PaidAt
	}
	if intent := inv.PaymentIntent; intent != nil { // expanded
		view.Payment = &paymentView{PaymentIntent: intent.ID, Status: string(intent.Status),
			Amount: intent.Amount, AmountReceived: intent.AmountReceived}
	}
	return view
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
			"stripe_sdk": sdkVersion(), "api_version": stripe.APIVersion})
	})
	mux.HandleFunc("GET /invoices/{id}/payment-status", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		params := &stripe.InvoiceParams{}
		params.AddExpand("payment_intent")
		inv, err := sc.Invoices.Get(id, params)
		if notFound(err) {
			writeJSON(w, 404, map[string]string{"error": "not_found", "id": id})
			return
		} else if err != nil {
			internal(w, err)
			return
		}
		writeJSON(w, 200, statusView(inv))
	})
	mux.HandleFunc("GET /customers/{id}/invoices", func(w http.ResponseWriter, r *http.Request) {
		customer := r.PathValue("id")
		params := &stripe.InvoiceListParams{Customer: stripe.String(customer)}
		params.Limit = stripe.Int64(100)
		params.AddExpand("data.payment_intent")
		views := []invoiceStatus{}
		paid, unpaid, outstanding := 0, 0, int64(0)
		it := sc.Invoices.List(params)
		for it.Next() {
			if it.Invoice().Status == stripe.InvoiceStatusDraft {
				continue
			}
			view := statusView(it.Invoice())
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
		if err := it.Err(); err != nil {
			internal(w, err)
			return
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
