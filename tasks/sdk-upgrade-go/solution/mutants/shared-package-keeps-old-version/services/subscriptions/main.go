// Subscriptions service: billing periods and counts, for the finance dashboard.
//
//	GET /healthz                                          200 when the service is up
//	GET /version                                          the Stripe SDK and API version it uses
//	GET /subscriptions/{subscriptionId}/metrics           one subscription's period and amounts
//	GET /customers/{customerId}/subscriptions/summary     how many subscriptions a customer has
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"math"
	"net/http"
	"os"

	"backoffice/internal/stripeclient"
	"github.com/stripe/stripe-go/v85"
)

var sc = stripeclient.New()

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
	// Since 2025-03-31.basil the billing period lives on each item: the subscription's
	// spans them all.
	start, end := int64(math.MaxInt64), int64(math.MinInt64)
	for _, item := range subscription.Items.Data {
		start, end = min(start, item.CurrentPeriodStart), max(end, item.CurrentPeriodEnd)
	}
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

// count pages through the customer's subscriptions in a status: lists no longer take
// `include[]=total_count`.
func count(ctx context.Context, customer, status string) (int, error) {
	params := &stripe.SubscriptionListParams{Customer: stripe.String(customer),
		Status: stripe.String(status)}
	params.Limit = stripe.Int64(100)
	total := 0
	for _, err := range sc.V1Subscriptions.List(ctx, params).All(ctx) {
		if err != nil {
			return 0, err
		}
		total++
	}
	return total, nil
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
			"stripe_sdk": stripe.ClientVersion, "api_version": stripe.APIVersion})
	})
	mux.HandleFunc("GET /subscriptions/{id}/metrics", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		sub, err := sc.V1Subscriptions.Retrieve(r.Context(), id, nil)
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
		ctx := r.Context()
		params := &stripe.SubscriptionListParams{Customer: stripe.String(customer),
			Status: stripe.String("all")}
		params.Limit = stripe.Int64(3)
		params.Single = true // the first page: the three latest
		first := sc.V1Subscriptions.List(ctx, params)
		err := first.Err()
		var total, active int
		if err == nil {
			total, err = count(ctx, customer, "all")
		}
		if err == nil {
			active, err = count(ctx, customer, "active")
		}
		if err != nil {
			internal(w, err)
			return
		}
		latest := []string{}
		for _, s := range first.Data() {
			latest = append(latest, s.ID)
		}
		writeJSON(w, 200, map[string]any{"customer": customer, "total": total,
			"active": active, "latest": latest})
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "5103"
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, mux))
}
