package backoffice;

import static backoffice.Api.STRIPE;
import static backoffice.Api.object;

import com.stripe.exception.StripeException;
import com.stripe.model.Charge;
import com.stripe.model.PaymentIntent;
import com.stripe.model.Refund;
import com.stripe.param.PaymentIntentListParams;
import com.stripe.param.PaymentIntentRetrieveParams;
import com.stripe.param.RefundListParams;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Payments service: what happened to a payment, for the support dashboard.
 *
 * <pre>
 * GET /healthz                              200 when the service is up
 * GET /version                              the Stripe SDK and API version it uses
 * GET /payments/{paymentIntentId}           one payment: its charge, card and refunds
 * GET /customers/{customerId}/payments      every payment of a customer, with totals
 * </pre>
 */
public final class Payments {
  private Payments() {}

  static Map<String, Object> card(Charge charge) {
    Charge.PaymentMethodDetails details = charge.getPaymentMethodDetails();
    if (details == null || !"card".equals(details.getType())) {
      return null;
    }
    Charge.PaymentMethodDetails.Card card = details.getCard();
    return object("brand", card.getBrand(), "last4", card.getLast4(),
        "exp_month", card.getExpMonth(), "exp_year", card.getExpYear(),
        "funding", card.getFunding());
  }

  static Map<String, Object> chargeView(Charge charge) throws StripeException {
    if (charge == null) {
      return null;
    }
    // Since 2022-11-15 a charge no longer embeds its refunds: list them (newest first).
    RefundListParams params = RefundListParams.builder()
        .setCharge(charge.getId()).setLimit(100L).build();
    List<Object> refunds = new ArrayList<>();
    for (Refund refund : STRIPE.v1().refunds().list(params).autoPagingIterable()) {
      refunds.add(0, object("id", refund.getId(), "amount", refund.getAmount(),
          "status", refund.getStatus(), "reason", refund.getReason()));
    }
    return object(
        "id", charge.getId(),
        "amount", charge.getAmount(),
        "amount_captured", charge.getAmountCaptured(),
        "captured", charge.getCaptured(),
        "paid", charge.getPaid(),
        "status", charge.getStatus(),
        "receipt_url", charge.getReceiptUrl(),
        "amount_refunded", charge.getAmountRefunded(),
        "refunded", charge.getRefunded(),
        "card", card(charge),
        "refunds", refunds);
  }

  static Map<String, Object> paymentView(PaymentIntent intent) throws StripeException {
    // `charges` is gone from PaymentIntents since 2022-11-15: `latest_charge`, expanded.
    return object(
        "id", intent.getId(),
        "amount", intent.getAmount(),
        "currency", intent.getCurrency(),
        "status", intent.getStatus(),
        "customer", intent.getCustomer(),
        "description", intent.getDescription(),
        "charge", chargeView(intent.getLatestChargeObject()));
  }

  public static void main(String[] args) throws Exception {
    Map<String, Api.Handler> routes = new LinkedHashMap<>();
    routes.put("/payments/([^/]+)", p -> {
      PaymentIntentRetrieveParams params = PaymentIntentRetrieveParams.builder()
          .addExpand("latest_charge").build();
      return paymentView(Api.orNotFound(p.get(0),
          () -> STRIPE.v1().paymentIntents().retrieve(p.get(0), params)));
    });
    routes.put("/customers/([^/]+)/payments", p -> {
      String customer = p.get(0);
      PaymentIntentListParams params = PaymentIntentListParams.builder()
          .setCustomer(customer).setLimit(100L).addExpand("data.latest_charge").build();
      List<Map<String, Object>> payments = new ArrayList<>();
      long captured = 0;
      long refunded = 0;
      for (PaymentIntent intent : STRIPE.v1().paymentIntents().list(params)
          .autoPagingIterable()) {
        Map<String, Object> view = paymentView(intent);
        payments.add(view);
        @SuppressWarnings("unchecked")
        Map<String, Object> charge = (Map<String, Object>) view.get("charge");
        if (charge != null) {
          captured += (Long) charge.get("amount_captured");
          refunded += (Long) charge.get("amount_refunded");
        }
      }
      return object("customer", customer, "count", payments.size(), "captured", captured,
          "refunded", refunded, "payments", payments);
    });
    Api.serve("payments", 5101, routes);
  }
}
