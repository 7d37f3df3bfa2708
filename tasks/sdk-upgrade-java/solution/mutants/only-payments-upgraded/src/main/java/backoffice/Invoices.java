package backoffice;

import static backoffice.Api.STRIPE;
import static backoffice.Api.object;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.stripe.model.Invoice;
import com.stripe.net.RequestOptions;
import com.stripe.param.InvoiceListParams;
import com.stripe.param.InvoiceRetrieveParams;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Invoices service: is an invoice paid, and by which payment? For the billing team.
 *
 * <pre>
 * GET /healthz                                  200 when the service is up
 * GET /version                                  the Stripe SDK and API version it uses
 * GET /invoices/{invoiceId}/payment-status      one invoice's payment status
 * GET /customers/{customerId}/invoices          every invoice of a customer, with totals
 * </pre>
 */
public final class Invoices {
  // Kept on the API version the service was written for: stripe-java 33 sends it when
  // told to, and the fields it reads come from each answer's JSON.
  static final RequestOptions OLD = RequestOptions.RequestOptionsBuilder
      .unsafeSetStripeVersionOverride(RequestOptions.builder(), "2020-08-27").build();

  private Invoices() {}

  static Map<String, Object> statusView(Invoice invoice) {
    JsonObject raw = invoice.getRawJsonObject();
    JsonElement expanded = raw.get("payment_intent");
    JsonObject intent = expanded != null && expanded.isJsonObject()
        ? expanded.getAsJsonObject() : null;
    return object(
        "id", invoice.getId(),
        "number", invoice.getNumber(),
        "customer", invoice.getCustomer(),
        "status", invoice.getStatus(),
        "paid", raw.get("paid").getAsBoolean(),
        "currency", invoice.getCurrency(),
        "amount_due", invoice.getAmountDue(),
        "amount_paid", invoice.getAmountPaid(),
        "amount_remaining", invoice.getAmountRemaining(),
        "paid_at", invoice.getStatusTransitions().getPaidAt(),
        "payment", intent == null ? null : object(
            "payment_intent", intent.get("id").getAsString(),
            "status", intent.get("status").getAsString(),
            "amount", intent.get("amount").getAsLong(),
            "amount_received", intent.get("amount_received").getAsLong()));
  }

  public static void main(String[] args) throws Exception {
    Map<String, Api.Handler> routes = new LinkedHashMap<>();
    routes.put("/invoices/([^/]+)/payment-status", p -> {
      InvoiceRetrieveParams params = InvoiceRetrieveParams.builder()
          .addExpand("payment_intent").build();
      return statusView(
          Api.orNotFound(p.get(0), () -> STRIPE.v1().invoices().retrieve(p.get(0), params, OLD)));
    });
    routes.put("/customers/([^/]+)/invoices", p -> {
      String customer = p.get(0);
      InvoiceListParams params = InvoiceListParams.builder().setCustomer(customer)
          .setLimit(100L).addExpand("data.payment_intent").build();
      List<Map<String, Object>> views = new ArrayList<>();
      long paid = 0;
      long outstanding = 0;
      for (Invoice invoice : STRIPE.v1().invoices().list(params, OLD).autoPagingIterable()) {
        if ("draft".equals(invoice.getStatus())) {
          continue;
        }
        views.add(statusView(invoice));
        paid += invoice.getRawJsonObject().get("paid").getAsBoolean() ? 1 : 0;
        outstanding += "open".equals(invoice.getStatus()) ? invoice.getAmountRemaining() : 0;
      }
      return object("customer", customer, "paid", paid, "unpaid", views.size() - paid,
          "outstanding", outstanding, "invoices", views);
    });
    Api.serve("invoices", 5102, routes);
  }
}
