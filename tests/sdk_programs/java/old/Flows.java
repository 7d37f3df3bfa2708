// An old stripe-java major (20.x, pinned to 2020-08-27) through the same flows as
// ../current, in that era's style (global Stripe.apiKey, static resource methods): the
// pre-2022-11-15 `charges` list on PaymentIntents, pre-basil invoices with
// `payment_intent` and subscription periods. Reads $STRIPE_SECRET_KEY and
// $API_BASE (empty: the SDK's default host); prints one JSON document.
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.stripe.Stripe;
import com.stripe.exception.CardException;
import com.stripe.exception.InvalidRequestException;
import com.stripe.exception.SignatureVerificationException;
import com.stripe.exception.StripeException;
import com.stripe.model.Customer;
import com.stripe.model.Event;
import com.stripe.model.LineItem;
import com.stripe.model.PaymentIntent;
import com.stripe.model.PaymentMethod;
import com.stripe.model.Price;
import com.stripe.model.Product;
import com.stripe.model.Refund;
import com.stripe.model.StripeObject;
import com.stripe.model.Subscription;
import com.stripe.model.checkout.Session;
import com.stripe.model.WebhookEndpoint;
import com.stripe.net.RequestOptions;
import com.stripe.net.Webhook;
import com.stripe.param.CustomerCreateParams;
import com.stripe.param.CustomerListParams;
import com.stripe.param.CustomerSearchParams;
import com.stripe.param.CustomerUpdateParams;
import com.stripe.param.PaymentIntentCreateParams;
import com.stripe.param.PaymentMethodAttachParams;
import com.stripe.param.PriceCreateParams;
import com.stripe.param.ProductCreateParams;
import com.stripe.param.RefundCreateParams;
import com.stripe.param.SubscriptionCreateParams;
import com.stripe.param.WebhookEndpointCreateParams;
import com.stripe.param.checkout.SessionCreateParams;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

public class Flows {
  static JsonObject json(StripeObject object) {
    return JsonParser.parseString(object.toJson()).getAsJsonObject();
  }

  static JsonObject describe(StripeException error) {
    JsonObject out = new JsonObject();
    out.addProperty("class", error.getClass().getSimpleName());
    out.addProperty("type", error.getStripeError().getType());
    out.addProperty("code", error.getCode());
    out.addProperty("status", error.getStatusCode());
    out.addProperty("request_id", error.getRequestId());
    out.addProperty("message", error.getStripeError().getMessage());
    if (error instanceof CardException) {
      out.addProperty("decline_code", ((CardException) error).getDeclineCode());
    }
    if (error instanceof InvalidRequestException) {
      out.addProperty("param", ((InvalidRequestException) error).getParam());
    }
    return out;
  }

  /**
   * Listens on a local port, registers it as a webhook endpoint at the SDK's API version,
   * makes an event happen and checks the delivery's signature with the SDK (and once more
   * with the body tampered). The event's object deserializes only when its api_version is
   * the SDK's own.
   */
  static JsonObject verifyWebhook() throws Exception {
    BlockingQueue<String[]> deliveries = new ArrayBlockingQueue<>(8);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/hooks", exchange -> {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      String signature = exchange.getRequestHeaders().getFirst("Stripe-Signature");
      deliveries.add(new String[] {body, signature});
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
    try {
      WebhookEndpointCreateParams params = WebhookEndpointCreateParams.builder()
          .setUrl("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks")
          .addEnabledEvent(WebhookEndpointCreateParams.EnabledEvent.CUSTOMER__CREATED)
          .putExtraParam("api_version", Stripe.API_VERSION)
          .build();
      WebhookEndpoint endpoint = WebhookEndpoint.create(params);
      Customer customer = Customer.create(
        CustomerCreateParams.builder().setEmail("hooked-java-old@example.com").build());
      JsonObject out = new JsonObject();
      String[] got = deliveries.poll(15, TimeUnit.SECONDS);
      if (got == null) {
        out.addProperty("error", "no delivery");
        return out;
      }
      Event event = Webhook.constructEvent(got[0], got[1], endpoint.getSecret());
      out.addProperty("type", event.getType());
      out.addProperty("api_version", event.getApiVersion());
      out.addProperty("object", event.getDataObjectDeserializer().getObject()
          .map(object -> ((Customer) object).getId()).orElse(null));
      out.addProperty("expected", customer.getId());
      try {
        Webhook.constructEvent(got[0] + " ", got[1], endpoint.getSecret());
      } catch (SignatureVerificationException error) {
        out.addProperty("tampered", error.getClass().getSimpleName());
      }
      return out;
    } finally {
      server.stop(0);
    }
  }

  public static void main(String[] args) throws Exception {
    Stripe.apiKey = System.getenv("STRIPE_SECRET_KEY");
    Stripe.setMaxNetworkRetries(2);
    String base = System.getenv("API_BASE");
    if (base != null && !base.isEmpty()) {
      Stripe.overrideApiBase(base);
    }
    JsonObject out = new JsonObject();
    out.addProperty("sdk", Stripe.VERSION);
    out.addProperty("api_version", Stripe.API_VERSION);
    if (args.length > 0 && args[0].equals("routed")) {
      Customer customer = Customer.create(
          CustomerCreateParams.builder().setEmail("routed-java-old@example.com").build());
      out.addProperty("customer", customer.getId());
      out.addProperty("default_base", Stripe.getApiBase());
      System.out.println(out);
      return;
    }

    // Core: customers.
    Customer customer = Customer.create(CustomerCreateParams.builder()
        .setEmail("java-old@example.com").setName("Old Duke").putMetadata("sdk", "java-old")
        .build());
    out.add("customer", json(customer));
    for (int i = 0; i < 3; i++) {
      Customer.create(CustomerCreateParams.builder().setEmail("old" + i + "@example.com")
          .build());
    }
    JsonArray listed = new JsonArray();
    for (Customer each :
        Customer.list(CustomerListParams.builder().setLimit(2L).build()).autoPagingIterable()) {
      listed.add(each.getId());
    }
    out.add("listed", listed);
    JsonArray searched = new JsonArray();
    for (Customer each : Customer.search(CustomerSearchParams.builder()
        .setQuery("metadata['sdk']:'java-old'").build()).getData()) {
      searched.add(each.getId());
    }
    out.add("searched", searched);
    out.add("updated", json(customer.update(CustomerUpdateParams.builder()
        .setName("Old Duke II").putMetadata("tier", "gold").build())));

    // Payments: the charge comes embedded in the PaymentIntent at this version.
    PaymentIntent intent = PaymentIntent.create(PaymentIntentCreateParams.builder()
        .setAmount(2000L).setCurrency("usd").setCustomer(customer.getId())
        .setPaymentMethod("pm_card_visa").addPaymentMethodType("card").setConfirm(true)
        .build());
    out.add("intent", json(intent));
    out.addProperty("embedded_charge_paid", intent.getCharges().getData().get(0).getPaid());
    try {
      PaymentIntent.create(PaymentIntentCreateParams.builder().setAmount(500L)
          .setCurrency("usd").setPaymentMethod("pm_card_chargeDeclinedInsufficientFunds")
          .addPaymentMethodType("card").setConfirm(true).build());
    } catch (StripeException error) {
      out.add("declined", describe(error));
    }
    out.add("refund", json(Refund.create(RefundCreateParams.builder()
        .setPaymentIntent(intent.getId()).setAmount(500L).build())));

    // Checkout: a session with line items (this era still names the payment method types).
    Product product = Product.create(ProductCreateParams.builder().setName("Java old plan")
        .build());
    Price oneOff = Price.create(PriceCreateParams.builder().setProduct(product.getId())
        .setUnitAmount(1500L).setCurrency("usd").build());
    Session session = Session.create(SessionCreateParams.builder()
        .setMode(SessionCreateParams.Mode.PAYMENT).setSuccessUrl("https://example.com/ok")
        .setCancelUrl("https://example.com/cancel")
        .addPaymentMethodType(SessionCreateParams.PaymentMethodType.CARD)
        .addLineItem(SessionCreateParams.LineItem.builder().setPrice(oneOff.getId())
            .setQuantity(3L).build())
        .build());
    out.add("session", json(session));
    JsonArray items = new JsonArray();
    for (LineItem item : session.listLineItems(new HashMap<String, Object>())
        .autoPagingIterable()) {
      items.add(json(item));
    }
    out.add("line_items", items);

    // Billing: a trial, then a subscription charged at once with its invoice's
    // payment_intent expanded.
    Price monthly = Price.create(PriceCreateParams.builder().setProduct(product.getId())
        .setUnitAmount(900L).setCurrency("usd")
        .setRecurring(PriceCreateParams.Recurring.builder()
            .setInterval(PriceCreateParams.Recurring.Interval.MONTH).build())
        .build());
    PaymentMethod pm = PaymentMethod.retrieve("pm_card_visa").attach(
        PaymentMethodAttachParams.builder().setCustomer(customer.getId()).build());
    customer.update(CustomerUpdateParams.builder()
        .setInvoiceSettings(CustomerUpdateParams.InvoiceSettings.builder()
            .setDefaultPaymentMethod(pm.getId()).build())
        .build());
    out.add("trial", json(Subscription.create(SubscriptionCreateParams.builder()
        .setCustomer(customer.getId()).setTrialPeriodDays(14L).addExpand("latest_invoice")
        .addItem(SubscriptionCreateParams.Item.builder().setPrice(monthly.getId()).build())
        .build())));
    Subscription paid = Subscription.create(SubscriptionCreateParams.builder()
        .setCustomer(customer.getId()).addExpand("latest_invoice.payment_intent")
        .addItem(SubscriptionCreateParams.Item.builder().setPrice(monthly.getId()).build())
        .build());
    out.add("paid", json(paid));
    out.addProperty("paid_intent_status",
        paid.getLatestInvoiceObject().getPaymentIntentObject().getStatus());

    // Idempotent retry.
    RequestOptions idem = RequestOptions.builder().setIdempotencyKey("java-old-idem").build();
    CustomerCreateParams again =
        CustomerCreateParams.builder().setEmail("idem-java-old@example.com").build();
    Customer first = Customer.create(again, idem);
    Customer replay = Customer.create(again, idem);
    JsonArray idempotent = new JsonArray();
    idempotent.add(first.getId());
    idempotent.add(replay.getId());
    idempotent.add(replay.getLastResponse().headers().firstValue("Idempotent-Replayed")
        .orElse(null));
    out.add("idempotent", idempotent);

    // Error types.
    try {
      Customer.retrieve("cus_missing");
    } catch (StripeException error) {
      out.add("missing", describe(error));
    }
    try {
      Customer.retrieve(customer.getId(), new HashMap<String, Object>(),
          RequestOptions.builder().setApiKey("sk_test_wrong").build());
    } catch (StripeException error) {
      out.add("auth", describe(error));
    }

    out.add("webhook", verifyWebhook());

    out.addProperty("deleted", customer.delete().getDeleted());
    System.out.println(out);
  }
}
