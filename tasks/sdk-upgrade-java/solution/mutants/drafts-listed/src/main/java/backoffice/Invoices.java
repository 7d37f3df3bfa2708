package backoffice;

import static backoffice.Api.STRIPE;
import static backoffice.Api.object;

import com.stripe.exception.StripeException;
import com.stripe.model.Invoice;
import com.stripe.model.InvoicePayment;
import com.stripe.model.PaymentIntent;
import com.stripe.param.InvoiceListParams;
import com.stripe.param.InvoicePaymentListParams;
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

  /**
   * The invoice's payment: the one that paid it, else its default one (what the invoice's
   * `payment_intent` named before 2025-03-31.basil removed it).
   */
  static PaymentIntent payingIntent(String invoiceId) throws StripeException {
    InvoicePaymentListParams params = InvoicePaymentListParams.builder().setInvoice(invoiceId)
        .setLimit(100L).addExpand("data.payment.payment_intent").build();
    InvoicePayment paid = null;
    InvoicePayment byDefault = null;
    for (InvoicePayment record : STRIPE.v1().invoicePayments().list(params)
        .autoPagingIterable()) {
      if (paid == null && "paid".equals(record.getStatus())) {
        paid = record;
      }
      if (byDefault == null && Boolean.TRUE.equals(record.getIsDefault())) {
        byDefault = record;
      }
    }
    InvoicePayment chosen = paid != null ? paid : byDefault;
    return chosen == null ? null : chosen.getPayment().getPaymentIntentObject();
  }

  static Map<String, Object> statusView(Invoice invoice) throws StripeException {
    PaymentIntent intent = payingIntent(invoice.getId());
    return object(
        "id", invoice.getId(),
        "number", invoice.getNumber(),
        "customer", invoice.getCustomer(),
        "status", invoice.getStatus(),
        "paid", "paid".equals(invoice.getStatus()), // `paid` was removed in 2025-03-31.basil
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
    routes.put("/invoices/([^/]+)/payment-status", p -> statusView(
        Api.orNotFound(p.get(0), () -> STRIPE.v1().invoices().retrieve(p.get(0)))));
    routes.put("/customers/([^/]+)/invoices", p -> {
      String customer = p.get(0);
      InvoiceListParams params = InvoiceListParams.builder().setCustomer(customer)
          .setLimit(100L).build();
      List<Map<String, Object>> views = new ArrayList<>();
      long paid = 0;
      long outstanding = 0;
      for (Invoice invoice : STRIPE.v1().invoices().list(params).autoPagingIterable()) {
        views.add(statusView(invoice));
        paid += "paid".equals(invoice.getStatus()) ? 1 : 0;
        outstanding += "open".equals(invoice.getStatus()) ? invoice.getAmountRemaining() : 0;
      }
      return object("customer", customer, "paid", paid, "unpaid", views.size() - paid,
          "outstanding", outstanding, "invoices", views);
    });
    Api.serve("invoices", 5102, routes);
  }
}
