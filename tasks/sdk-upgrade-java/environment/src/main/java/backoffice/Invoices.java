package backoffice;

import static backoffice.Api.object;

import com.stripe.model.Invoice;
import com.stripe.model.PaymentIntent;
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
  private Invoices() {}

  static Map<String, Object> statusView(Invoice invoice) {
    PaymentIntent intent = invoice.getPaymentIntentObject(); // expanded
    return object(
        "id", invoice.getId(),
        "number", invoice.getNumber(),
        "customer", invoice.getCustomer(),
        "status", invoice.getStatus(),
        "paid", invoice.getPaid(),
        "currency", invoice.getCurrency(),
        "amount_due", invoice.getAmountDue(),
        "amount_paid", invoice.getAmountPaid(),
        "amount_remaining", invoice.getAmountRemaining(),
        "paid_at", invoice.getStatusTransitions().getPaidAt(),
        "payment", intent == null ? null : object(
            "payment_intent", intent.getId(),
            "status", intent.getStatus(),
            "amount", intent.getAmount(),
            "amount_received", intent.getAmountReceived()));
  }

  public static void main(String[] args) throws Exception {
    Map<String, Api.Handler> routes = new LinkedHashMap<>();
    routes.put("/invoices/([^/]+)/payment-status", p -> {
      InvoiceRetrieveParams params = InvoiceRetrieveParams.builder()
          .addExpand("payment_intent").build();
      return statusView(
          Api.orNotFound(p.get(0), () -> Invoice.retrieve(p.get(0), params, null)));
    });
    routes.put("/customers/([^/]+)/invoices", p -> {
      String customer = p.get(0);
      InvoiceListParams params = InvoiceListParams.builder().setCustomer(customer)
          .setLimit(100L).addExpand("data.payment_intent").build();
      List<Map<String, Object>> views = new ArrayList<>();
      long paid = 0;
      long outstanding = 0;
      for (Invoice invoice : Invoice.list(params).autoPagingIterable()) {
        if ("draft".equals(invoice.getStatus())) {
          continue;
        }
        views.add(statusView(invoice));
        paid += Boolean.TRUE.equals(invoice.getPaid()) ? 1 : 0;
        outstanding += "open".equals(invoice.getStatus()) ? invoice.getAmountRemaining() : 0;
      }
      return object("customer", customer, "paid", paid, "unpaid", views.size() - paid,
          "outstanding", outstanding, "invoices", views);
    });
    Api.serve("invoices", 5102, routes);
  }
}
