// The current stripe-java major driven through core, payments, Checkout and billing flows.
// Reads the secret key from $STRIPE_SECRET_KEY and the API base from $API_BASE (empty:
// the SDK's default host, https://api.stripe.com, as under `stripebench exec`); prints one
// JSON document.
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.stripe.Stripe;
import com.stripe.StripeClient;
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
import com.stripe.model.StripeObject;
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
import com.stripe.param.checkout.SessionLineItemListParams;

public class Flows {
  static StripeClient client(String key) {
    StripeClient.StripeClientBuilder builder =
        StripeClient.builder().setApiKey(key).setMaxNetworkRetries(2);
    String base = System.getenv("API_BASE");
    if (base != null && !base.isEmpty()) {
      builder.setApiBase(base);
    }
    return builder.build();
  }

  /** The SDK's own view of an object: its typed fields serialized again. */
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
  static JsonObject verifyWebhook(StripeClient stripe) throws Exception {
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
      WebhookEndpoint endpoint = stripe.v1().webhookEndpoints().create(params);
      Customer customer = stripe.v1().customers().create(
        CustomerCreateParams.builder().setEmail("hooked-java@example.com").build());
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
    StripeClient stripe = client(System.getenv("STRIPE_SECRET_KEY"));
    JsonObject out = new JsonObject();
    out.addProperty("sdk", Stripe.VERSION);
    out.addProperty("api_version", Stripe.API_VERSION);
    if (args.length > 0 && args[0].equals("routed")) {
      Customer customer = stripe.v1().customers().create(
          CustomerCreateParams.builder().setEmail("routed-java@example.com").build());
      out.addProperty("customer", customer.getId());
      out.addProperty("default_base", Stripe.getApiBase());
      System.out.println(out);
      return;
    }

    // Core: customers.
    Customer customer = stripe.v1().customers().create(CustomerCreateParams.builder()
        .setEmail("java@example.com").setName("Duke").putMetadata("sdk", "java").build());
    out.add("customer", json(customer));
    for (int i = 0; i < 3; i++) {
      stripe.v1().customers().create(
          CustomerCreateParams.builder().setEmail("java" + i + "@example.com").build());
    }
    JsonArray listed = new JsonArray();
    for (Customer each : stripe.v1().customers()
        .list(CustomerListParams.builder().setLimit(2L).build()).autoPagingIterable()) {
      listed.add(each.getId());
    }
    out.add("listed", listed);
    JsonArray searched = new JsonArray();
    for (Customer each : stripe.v1().customers().search(CustomerSearchParams.builder()
        .setQuery("metadata['sdk']:'java'").build()).getData()) {
      searched.add(each.getId());
    }
    out.add("searched", searched);
    out.add("updated", json(stripe.v1().customers().update(customer.getId(),
        CustomerUpdateParams.builder().setName("Duke II").putMetadata("tier", "gold")
            .build())));

    // Payments: a confirmed card payment (latest_charge expanded), a decline, a refund.
    PaymentIntent intent = stripe.v1().paymentIntents().create(PaymentIntentCreateParams
        .builder().setAmount(2000L).setCurrency("usd").setCustomer(customer.getId())
        .setPaymentMethod("pm_card_visa").addPaymentMethodType("card").setConfirm(true)
        .addExpand("latest_charge").build());
    out.add("intent", json(intent));
    out.addProperty("latest_charge_paid", intent.getLatestChargeObject().getPaid());
    try {
      stripe.v1().paymentIntents().create(PaymentIntentCreateParams.builder()
          .setAmount(500L).setCurrency("usd")
          .setPaymentMethod("pm_card_chargeDeclinedInsufficientFunds")
          .addPaymentMethodType("card").setConfirm(true).build());
    } catch (StripeException error) {
      out.add("declined", describe(error));
    }
    out.add("refund", json(stripe.v1().refunds().create(RefundCreateParams.builder()
        .setPaymentIntent(intent.getId()).setAmount(500L).build())));

    // Checkout: a session with line items, read back.
    Product product = stripe.v1().products().create(
        ProductCreateParams.builder().setName("Java plan").build());
    Price oneOff = stripe.v1().prices().create(PriceCreateParams.builder()
        .setProduct(product.getId()).setUnitAmount(1500L).setCurrency("usd").build());
    Session session = stripe.v1().checkout().sessions().create(SessionCreateParams.builder()
        .setMode(SessionCreateParams.Mode.PAYMENT).setSuccessUrl("https://example.com/ok")
        .addLineItem(SessionCreateParams.LineItem.builder().setPrice(oneOff.getId())
            .setQuantity(3L).build())
        .build());
    out.add("session", json(session));
    JsonArray items = new JsonArray();
    for (LineItem item : stripe.v1().checkout().sessions().lineItems()
        .list(session.getId(), SessionLineItemListParams.builder().build())
        .autoPagingIterable()) {
      items.add(json(item));
    }
    out.add("line_items", items);

    // Billing: a subscription with a trial, then one charged at once (invoice expanded).
    Price monthly = stripe.v1().prices().create(PriceCreateParams.builder()
        .setProduct(product.getId()).setUnitAmount(900L).setCurrency("usd")
        .setRecurring(PriceCreateParams.Recurring.builder()
            .setInterval(PriceCreateParams.Recurring.Interval.MONTH).build())
        .build());
    PaymentMethod pm = stripe.v1().paymentMethods().attach("pm_card_visa",
        PaymentMethodAttachParams.builder().setCustomer(customer.getId()).build());
    stripe.v1().customers().update(customer.getId(), CustomerUpdateParams.builder()
        .setInvoiceSettings(CustomerUpdateParams.InvoiceSettings.builder()
            .setDefaultPaymentMethod(pm.getId()).build())
        .build());
    out.add("trial", json(stripe.v1().subscriptions().create(SubscriptionCreateParams.builder()
        .setCustomer(customer.getId()).setTrialPeriodDays(14L).addExpand("latest_invoice")
        .addItem(SubscriptionCreateParams.Item.builder().setPrice(monthly.getId()).build())
        .build())));
    out.add("paid", json(stripe.v1().subscriptions().create(SubscriptionCreateParams.builder()
        .setCustomer(customer.getId()).addExpand("latest_invoice.payments")
        .addItem(SubscriptionCreateParams.Item.builder().setPrice(monthly.getId()).build())
        .build())));

    // Idempotent retry: the same key answers the first result again.
    RequestOptions idem = RequestOptions.builder().setIdempotencyKey("java-idem-key").build();
    CustomerCreateParams again =
        CustomerCreateParams.builder().setEmail("idem-java@example.com").build();
    Customer first = stripe.v1().customers().create(again, idem);
    Customer replay = stripe.v1().customers().create(again, idem);
    JsonArray idempotent = new JsonArray();
    idempotent.add(first.getId());
    idempotent.add(replay.getId());
    idempotent.add(replay.getLastResponse().headers().firstValue("Idempotent-Replayed")
        .orElse(null));
    out.add("idempotent", idempotent);

    // Error types.
    try {
      stripe.v1().customers().retrieve("cus_missing");
    } catch (StripeException error) {
      out.add("missing", describe(error));
    }
    try {
      client("sk_test_wrong").v1().customers().retrieve(customer.getId());
    } catch (StripeException error) {
      out.add("auth", describe(error));
    }

    out.add("webhook", verifyWebhook(stripe));

    out.addProperty("deleted", stripe.v1().customers().delete(customer.getId()).getDeleted());
    System.out.println(out);
  }
}
