// The current stripe-go major driven through core, payments, Checkout and billing flows.
// Reads the secret key from $STRIPE_SECRET_KEY and the API base from $API_BASE (empty:
// the SDK's default host, https://api.stripe.com, as under `stripebench exec`); prints one
// JSON document.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

func must[T any](value T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return value
}

// describe turns an SDK error into the fields the test compares.
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

func newClient(key string) *stripe.Client {
	base := os.Getenv("API_BASE")
	if base == "" {
		return stripe.NewClient(key)
	}
	retries := int64(2)
	config := &stripe.BackendConfig{URL: stripe.String(base), MaxNetworkRetries: &retries}
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(config)))
}

func main() {
	ctx := context.Background()
	sc := newClient(os.Getenv("STRIPE_SECRET_KEY"))
	out := map[string]any{"sdk": stripe.ClientVersion, "api_version": stripe.APIVersion}
	if len(os.Args) > 1 && os.Args[1] == "routed" {
		customer := must(sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{
			Email: stripe.String("routed-go@example.com")}))
		out["customer"] = customer.ID
		out["default_base"] = stripe.APIURL
		emit(out)
		return
	}

	// Core: customers.
	customer := must(sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{
		Email: stripe.String("go@example.com"), Name: stripe.String("Gopher"),
		Metadata: map[string]string{"sdk": "go"}}))
	out["customer"] = customer
	for i := 0; i < 3; i++ {
		must(sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{
			Email: stripe.String(fmt.Sprintf("go%d@example.com", i))}))
	}
	listed := []string{}
	for c, err := range sc.V1Customers.List(ctx, &stripe.CustomerListParams{
		ListParams: stripe.ListParams{Limit: stripe.Int64(2)}}).All(ctx) {
		listed = append(listed, must(c, err).ID)
	}
	out["listed"] = listed
	found := []string{}
	for c, err := range sc.V1Customers.Search(ctx, &stripe.CustomerSearchParams{
		SearchParams: stripe.SearchParams{Query: "metadata['sdk']:'go'"}}).All(ctx) {
		found = append(found, must(c, err).ID)
	}
	out["searched"] = found
	out["updated"] = must(sc.V1Customers.Update(ctx, customer.ID, &stripe.CustomerUpdateParams{
		Name: stripe.String("Gopher II"), Metadata: map[string]string{"tier": "gold"}}))

	// Payments: a confirmed card payment, a decline, a refund, latest_charge expanded.
	intentParams := &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(2000), Currency: stripe.String("usd"),
		Customer: stripe.String(customer.ID), PaymentMethod: stripe.String("pm_card_visa"),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}), Confirm: stripe.Bool(true)}
	intentParams.AddExpand("latest_charge")
	intent := must(sc.V1PaymentIntents.Create(ctx, intentParams))
	out["intent"] = intent
	_, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(500), Currency: stripe.String("usd"),
		PaymentMethod:      stripe.String("pm_card_chargeDeclinedInsufficientFunds"),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}), Confirm: stripe.Bool(true)})
	out["declined"] = describe(err)
	out["refund"] = must(sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(intent.ID), Amount: stripe.Int64(500)}))

	// Checkout: a session with line items, read back.
	product := must(sc.V1Products.Create(ctx, &stripe.ProductCreateParams{
		Name: stripe.String("Go plan")}))
	oneOff := must(sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{
		Product: stripe.String(product.ID), UnitAmount: stripe.Int64(1500),
		Currency: stripe.String("usd")}))
	session := must(sc.V1CheckoutSessions.Create(ctx, &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String("payment"), SuccessURL: stripe.String("https://example.com/ok"),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{
			{Price: stripe.String(oneOff.ID), Quantity: stripe.Int64(3)}}}))
	out["session"] = session
	items := []*stripe.LineItem{}
	for item, err := range sc.V1CheckoutSessions.ListLineItems(ctx,
		&stripe.CheckoutSessionListLineItemsParams{Session: stripe.String(session.ID)}).All(ctx) {
		items = append(items, must(item, err))
	}
	out["line_items"] = items

	// Billing: a subscription with a trial, then one charged at once (invoice expanded).
	monthly := must(sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{
		Product: stripe.String(product.ID), UnitAmount: stripe.Int64(900),
		Currency: stripe.String("usd"),
		Recurring: &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")}}))
	pm := must(sc.V1PaymentMethods.Attach(ctx, "pm_card_visa",
		&stripe.PaymentMethodAttachParams{Customer: stripe.String(customer.ID)}))
	must(sc.V1Customers.Update(ctx, customer.ID, &stripe.CustomerUpdateParams{
		InvoiceSettings: &stripe.CustomerUpdateInvoiceSettingsParams{
			DefaultPaymentMethod: stripe.String(pm.ID)}}))
	trialParams := &stripe.SubscriptionCreateParams{Customer: stripe.String(customer.ID),
		Items:           []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(monthly.ID)}},
		TrialPeriodDays: stripe.Int64(14)}
	trialParams.AddExpand("latest_invoice")
	out["trial"] = must(sc.V1Subscriptions.Create(ctx, trialParams))
	paidParams := &stripe.SubscriptionCreateParams{Customer: stripe.String(customer.ID),
		Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(monthly.ID)}}}
	paidParams.AddExpand("latest_invoice.payments")
	out["paid"] = must(sc.V1Subscriptions.Create(ctx, paidParams))

	// Idempotent retry: the same key answers the first result again.
	again := &stripe.CustomerCreateParams{Email: stripe.String("idem-go@example.com")}
	again.SetIdempotencyKey("go-idem-key")
	first := must(sc.V1Customers.Create(ctx, again))
	replay := must(sc.V1Customers.Create(ctx, again))
	out["idempotent"] = []string{first.ID, replay.ID,
		replay.LastResponse.Header.Get("Idempotent-Replayed")}

	// Error types.
	_, err = sc.V1Customers.Retrieve(ctx, "cus_missing", nil)
	out["missing"] = describe(err)
	_, err = newClient("sk_test_wrong").V1Customers.Retrieve(ctx, customer.ID, nil)
	out["auth"] = describe(err)

	out["webhook"] = verifyWebhook(ctx, sc)

	deleted := must(sc.V1Customers.Delete(ctx, customer.ID, nil))
	out["deleted"] = deleted.Deleted
	emit(out)
}

// verifyWebhook listens on a local port, registers it as a webhook endpoint at the SDK's
// API version (what webhook.ConstructEvent insists on), makes an event happen and checks
// the delivery's signature with the SDK, then once more with the body tampered.
func verifyWebhook(ctx context.Context, sc *stripe.Client) map[string]any {
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
	endpoint := must(sc.V1WebhookEndpoints.Create(ctx, &stripe.WebhookEndpointCreateParams{
		URL:           stripe.String("http://" + listener.Addr().String() + "/hooks"),
		EnabledEvents: stripe.StringSlice([]string{"customer.created"}),
		APIVersion:    stripe.String(stripe.APIVersion)}))
	customer := must(sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{
		Email: stripe.String("hooked-go@example.com")}))
	select {
	case got := <-deliveries:
		event, err := webhook.ConstructEvent(got.body, got.signature, endpoint.Secret)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		var object map[string]any
		must(0, json.Unmarshal(event.Data.Raw, &object))
		_, tampered := webhook.ConstructEvent(append(got.body, ' '), got.signature,
			endpoint.Secret)
		return map[string]any{"type": event.Type, "api_version": event.APIVersion,
			"object": object["id"], "expected": customer.ID, "tampered": fmt.Sprint(tampered)}
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
