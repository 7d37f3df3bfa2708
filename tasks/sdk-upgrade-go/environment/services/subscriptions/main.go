// Subscriptions service: billing periods and counts, for the finance dashboard.
//
//	GET /healthz                                          200 when the service is up
//	GET /version                                          the Stripe SDK and API version it uses
//	GET /subscriptions/{subscriptionId}/metrics           one subscription's period and amounts
//	GET /customers/{customerId}/subscriptions/summary     how many subscriptions a customer has
package main

import (
	"encoding/json"
	"errors"
	"log"
	"math"
	"net/http"
	"os"
	"runtime/debug"
	"strings"

	"github.com/stripe/stripe-go/v72"
	"github.com/stripe/stripe-go/v72/client"
	"github.com/stripe/stripe-go/v72/sub"
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

const day = 86400

// monthsPerInterval: how many months one billing interval lasts.
var monthsPerInterval = map[string]float64{"day": 12.0 / 365, "week": 12.0 / 52, "month": 1,
	"year": 12}

type itemView struct {
	Price         string `json:"price"`
	Quantity      int64  `json:"quantity"`
	Interval      string `json:"interval"`
	MonthlyAmount int64  `json:"monthly_amount"`
}

type metrics struct {
	ID                 string     `json:"id"`
	Customer           string     `json:"customer"`
	Status             string     `json:"status"`
	CancelAtPeriodEnd  bool       `json:"cancel_at_period_end"`
	CurrentPeriodStart int64      `json:"current_period_start"`
	CurrentPeriodEnd   int64      `json:"current_period_end"`
	PeriodDays         int64      `json:"period_days"`
	Items              []itemView `json:"items"`
	MonthlyAmount      int64      `json:"monthly_amount"`
}

// monthly is the price's amount per month in the smallest currency unit, rounded half to
// even as the finance reports have always been.
func monthly(price *stripe.Price, quantity int64) int64 {
	if price.Recurring == nil {
		return 0
	}
	perInterval := float64(price.UnitAmount*quantity) / float64(price.Recurring.IntervalCount)
	return int64(math.RoundToEven(perInterval / monthsPerInterval[string(price.Recurring.Interval)]))
}

func metricsView(subscription *stripe.Subscription) metrics {
	start, end := subscription.CurrentPeriodStart, subscription.CurrentPeriodEnd
	view := metrics{ID: subscription.ID, Status: string(subscription.Status),
		CancelAtPeriodEnd: subscription.CancelAtPeriodEnd, CurrentPeriodStart: start,
		CurrentPeriodEnd: end, Items: []itemView{},
		PeriodDays: int64(math.RoundToEven(float64(end-start) / day))}
	if subscription.Customer != nil {
		view.Customer = subscription.Customer.ID
	}
	for _, item := range subscription.Items.Data {
		amount := monthly(item.Price, item.Quantity)
		view.Items = append(view.Items, itemView{Price: item.Price.ID, Quantity: item.Quantity,
			Interval: string(item.Price.Recurring.Interval), MonthlyAmount: amount})
		view.MonthlyAmount += amount
	}
	return view
}

// page is the first page of the customer's subscriptions in a status, with the total count.
func page(customer, status string, limit int64) (*sub.Iter, error) {
	params := &stripe.SubscriptionListParams{Customer: customer, Status: status}
	params.Limit = stripe.Int64(limit)
	params.Single = true
	params.Filters.AddFilter("include[]", "", "total_count")
	it := sc.Subscriptions.List(params)
	return it, it.Err()
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
		writeJSON(w, 200, map[string]string{"service": "subscriptions",
			"stripe_sdk": sdkVersion(), "api_version": stripe.APIVersion})
	})
	mux.HandleFunc("GET /subscriptions/{id}/metrics", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		sub, err := sc.Subscriptions.Get(id, nil)
		if notFound(err) {
			writeJSON(w, 404, map[string]string{"error": "not_found", "id": id})
			return
		} else if err != nil {
			internal(w, err)
			return
		}
		writeJSON(w, 200, metricsView(sub))
	})
	mux.HandleFunc("GET /customers/{id}/subscriptions/summary", func(w http.ResponseWriter, r *http.Request) {
		customer := r.PathValue("id")
		every, err := page(customer, "all", 3)
		if err != nil {
			internal(w, err)
			return
		}
		active, err := page(customer, "active", 1)
		if err != nil {
			internal(w, err)
			return
		}
		latest := []string{}
		for every.Next() {
			latest = append(latest, every.Subscription().ID)
		}
		writeJSON(w, 200, map[string]any{"customer": customer,
			"total": every.Meta().TotalCount, "active": active.Meta().TotalCount,
			"latest": latest})
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "5103"
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, mux))
}
