// An old stripe-go major (v72, pinned to 2020-08-27) through the same flows as ../current:
// the pre-2022-11-15 `charges` list on PaymentIntents, pre-basil invoices with
// `payment_intent` and subscription periods. Reads $STRIPE_SECRET_KEY and
// $API_BASE (empty: the SDK's default host); prints one JSON document.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/stripe/stripe-go/v72"
	"github.com/stripe/stripe-go/v72/client"
	"github.com/stripe/stripe-go/v72/webhook"
)

func must[T any](value T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return value
}

func describe(err error) map[string]any {
	var stripeErr *stripe.Error
	if !errors.As(err, &stripeErr) {
		return map[string]any{"unexpected": fmt.Sprint(err)}
	}
	return map[string]any{"type": stripeErr.Type, "code": stripeErr.Code,
		"decline_code": stripeErr.DeclineCode, "param": stripeErr.Param,
		"status": stripeErr.HTTPStatusCode, "request_id": stripeErr.RequestID,
		"message": stripeErr.Msg}
}

func newClient(key string) *client.API {
	base := os.Getenv("API_BASE")
	if base == "" {
		return client.New(key, nil)
	}
	config := &stripe.BackendConfig{URL: stripe.String(base),
		MaxNetworkRetries: stripe.Int64(2), LeveledLogger: &stripe.LeveledLogger{}}
	return client.New(key, &stripe.Backends{
		API:     stripe.GetBackendWithConfig(stripe.APIBackend, config),
		Connect: stripe.GetBackendWithConfig(stripe.ConnectBackend, config),
		Uploads: stripe.GetBackendWithConfig(stripe.UploadsBackend, config)})
}

func main() {
	sc := newClient(os.Getenv("STRIPE_SECRET_KEY"))
	out := map[string]any{"api_version": stripe.APIVersion}
	if len(os.Args) > 1 && os.Args[1] == "routed" {
		customer := must(sc.Customers.New(&stripe.CustomerParams{
			Email: stripe.String("routed-go-old@example.com")}))
		out["customer"] = customer.ID
		out["default_base"] = stripe.APIURL
		emit(out)
		return
	}

	// Core: customers.
	params := &stripe.CustomerParams{Email: stripe.String("go-old@example.com"),
		Name: stripe.String("Old Gopher")}
	params.AddMetadata("sdk", "go-old")
	customer := must(sc.Customers.New(params))
	out["customer"] = customer
	for i := 0; i < 3; i++ {
		must(sc.Customers.New(&stripe.CustomerParams{
			Email: stripe.String(fmt.Sprintf("old%d@example.com", i))}))
	}
	listParams := &stripe.CustomerListParams{}
	listParams.Limit = stripe.Int64(2)
	listed := []string{}
	for it := sc.Customers.List(listParams); it.Next(); {
		listed = append(listed, it.Customer().ID)
	}
	out["listed"] = listed
	search := &stripe.CustomerSearchParams{}
	search.Query = "metadata['sdk']:'go-old'"
	found := []string{}
	for it := sc.Customers.Search(search); it.Next(); {
		found = append(found, it.Customer().ID)
	}
	out["searched"] = found
	update := &stripe.CustomerParams{Name: stripe.String("Old Gopher II")}
	update.AddMetadata("tier", "gold")
	out["updated"] = must(sc.Customers.Update(customer.ID, update))

	// Payments: the charge comes embedded in the PaymentIntent at this version.
	intent := must(sc.PaymentIntents.New(&stripe.PaymentIntentParams{
		Amount: stripe.Int64(2000), Currency: stripe.String("usd"),
		Customer: stripe.String(customer.ID), PaymentMethod: stripe.String("pm_card_visa"),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}), Confirm: stripe.Bool(true)}))
	out["intent"] = intent
	_, err := sc.PaymentIntents.New(&stripe.PaymentIntentParams{
		Amount: stripe.Int64(500), Currency: stripe.String("usd"),
		PaymentMethod:      stripe.String("pm_card_chargeDeclinedInsufficientFunds"),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}), Confirm: stripe.Bool(true)})
	out["declined"] = describe(err)
	out["refund"] = must(sc.Refunds.New(&stripe.RefundParams{
		PaymentIntent: stripe.String(intent.ID), Amount: stripe.Int64(500)}))

	// Checkout: a session with line items (this era still names the payment method types).
	product := must(sc.Products.New(&stripe.ProductParams{Name: stripe.String("Go old plan")}))
	oneOff := must(sc.Prices.New(&stripe.PriceParams{Product: stripe.String(product.ID),
		UnitAmount: stripe.Int64(1500), Currency: stripe.String("usd")}))
	session := must(sc.CheckoutSessions.New(&stripe.CheckoutSessionParams{
		Mode: stripe.String("payment"), SuccessURL: stripe.String("https://example.com/ok"),
		CancelURL:          stripe.String("https://example.com/cancel"),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}),
		LineItems: []*stripe.CheckoutSessionLineItemParams{
			{Price: stripe.String(oneOff.ID), Quantity: stripe.Int64(3)}}}))
	out["session"] = session
	items := []*stripe.LineItem{}
	for it := sc.CheckoutSessions.ListLineItems(session.ID,
		&stripe.CheckoutSessionListLineItemsParams{}); it.Next(); {
		items = append(items, it.LineItem())
	}
	out["line_items"] = items

	// Billing: a trial, then a subscription charged at once with its invoice's
	// payment_intent expanded.
	monthly := must(sc.Prices.New(&stripe.PriceParams{Product: stripe.String(product.ID),
		UnitAmount: stripe.Int64(900), Currency: stripe.String("usd"),
		Recurring: &stripe.PriceRecurringParams{Interval: stripe.String("month")}}))
	pm := must(sc.PaymentMethods.Attach("pm_card_visa",
		&stripe.PaymentMethodAttachParams{Customer: stripe.String(customer.ID)}))
	must(sc.Customers.Update(customer.ID, &stripe.CustomerParams{
		InvoiceSettings: &stripe.CustomerInvoiceSettingsParams{
			DefaultPaymentMethod: stripe.String(pm.ID)}}))
	trial := &stripe.SubscriptionParams{Customer: stripe.String(customer.ID),
		Items:           []*stripe.SubscriptionItemsParams{{Price: stripe.String(monthly.ID)}},
		TrialPeriodDays: stripe.Int64(14)}
	trial.AddExpand("latest_invoice")
	out["trial"] = must(sc.Subscriptions.New(trial))
	paid := &stripe.SubscriptionParams{Customer: stripe.String(customer.ID),
		Items: []*stripe.SubscriptionItemsParams{{Price: stripe.String(monthly.ID)}}}
	paid.AddExpand("latest_invoice.payment_intent")
	out["paid"] = must(sc.Subscriptions.New(paid))

	// Idempotent retry.
	again := &stripe.CustomerParams{Email: stripe.String("idem-go-old@example.com")}
	again.SetIdempotencyKey("go-old-idem-key")
	first := must(sc.Customers.New(again))
	replay := must(sc.Customers.New(again))
	out["idempotent"] = []string{first.ID, replay.ID,
		replay.LastResponse.Header.Get("Idempotent-Replayed")}

	// Error types.
	_, err = sc.Customers.Get("cus_missing", nil)
	out["missing"] = describe(err)
	_, err = newClient("sk_test_wrong").Customers.Get(customer.ID, nil)
	out["auth"] = describe(err)

	out["webhook"] = verifyWebhook(sc)

	deleted := must(sc.Customers.Del(customer.ID, nil))
	out["deleted"] = deleted.Deleted
	emit(out)
}

// verifyWebhook: as in ../current, with an endpoint pinned to this SDK's 2020-08-27.
func verifyWebhook(sc *client.API) map[string]any {
	listener := must(net.Listen("tcp", "127.0.0.1:0"))
	type delivery struct {
		body      []byte
		signature string
	}
	deliveries := make(chan delivery, 8)
	go http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		deliveries <- delivery{body, r.Header.Get("Stripe-Signature")}
	}))
	endpoint := must(sc.WebhookEndpoints.New(&stripe.WebhookEndpointParams{
		URL:           stripe.String("http://" + listener.Addr().String() + "/hooks"),
		EnabledEvents: stripe.StringSlice([]string{"customer.created"}),
		APIVersion:    stripe.String(stripe.APIVersion)}))
	customer := must(sc.Customers.New(&stripe.CustomerParams{
		Email: stripe.String("hooked-go-old@example.com")}))
	select {
	case got := <-deliveries:
		event, err := webhook.ConstructEvent(got.body, got.signature, endpoint.Secret)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		_, tampered := webhook.ConstructEvent(append(got.body, ' '), got.signature,
			endpoint.Secret)
		return map[string]any{"type": event.Type, "api_version": event.APIVersion,
			"object": event.Data.Object["id"], "expected": customer.ID,
			"tampered": fmt.Sprint(tampered)}
	case <-time.After(15 * time.Second):
		return map[string]any{"error": "no delivery"}
	}
}

func emit(out map[string]any) {
	encoded, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(string(encoded))
}
