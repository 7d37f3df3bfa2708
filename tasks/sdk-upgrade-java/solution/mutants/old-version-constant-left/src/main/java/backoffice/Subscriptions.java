package backoffice;

import static backoffice.Api.STRIPE;
import static backoffice.Api.object;

import com.stripe.model.Price;
import com.stripe.model.Subscription;
import com.stripe.model.SubscriptionItem;
import com.stripe.param.SubscriptionListParams;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Subscriptions service: billing periods and counts, for the finance dashboard.
 *
 * <pre>
 * GET /healthz                                           200 when the service is up
 * GET /version                                           the Stripe SDK and API version it uses
 * GET /subscriptions/{subscriptionId}/metrics            one subscription's period and amounts
 * GET /customers/{customerId}/subscriptions/summary      how many subscriptions a customer has
 * </pre>
 */
public final class Subscriptions {
  private static final long DAY = 86400;
  private static final Map<String, Double> MONTHS = Map.of(
      "day", 12.0 / 365, "week", 12.0 / 52, "month", 1.0, "year", 12.0);

  private Subscriptions() {}

  /** The price's amount per month in the smallest currency unit (halves to even). */
  static long monthly(Price price, long quantity) {
    Price.Recurring recurring = price.getRecurring();
    if (recurring == null) {
      return 0;
    }
    double perInterval = (double) (price.getUnitAmount() * quantity)
        / recurring.getIntervalCount();
    return (long) Math.rint(perInterval / MONTHS.get(recurring.getInterval()));
  }

  /** What the service ran before the upgrade. */
  static final String LEGACY_API_VERSION = "2020-08-27";

  static Map<String, Object> metrics(Subscription sub) {
    List<Map<String, Object>> items = new ArrayList<>();
    long total = 0;
    for (SubscriptionItem item : sub.getItems().getData()) {
      long amount = monthly(item.getPrice(), item.getQuantity());
      items.add(object("price", item.getPrice().getId(), "quantity", item.getQuantity(),
          "interval", item.getPrice().getRecurring().getInterval(), "monthly_amount", amount));
      total += amount;
    }
    // Since 2025-03-31.basil the billing period lives on each item, not the subscription.
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    for (SubscriptionItem item : sub.getItems().getData()) {
      start = Math.min(start, item.getCurrentPeriodStart());
      end = Math.max(end, item.getCurrentPeriodEnd());
    }
    return object(
        "id", sub.getId(),
        "customer", sub.getCustomer(),
        "status", sub.getStatus(),
        "cancel_at_period_end", sub.getCancelAtPeriodEnd(),
        "current_period_start", start,
        "current_period_end", end,
        "period_days", (long) Math.rint((double) (end - start) / DAY),
        "items", items,
        "monthly_amount", total);
  }

  /** How many subscriptions match: `include[]=total_count` is gone, so page and count. */
  static long count(String customer, SubscriptionListParams.Status status) throws Exception {
    SubscriptionListParams params = SubscriptionListParams.builder().setCustomer(customer)
        .setStatus(status).setLimit(100L).build();
    long total = 0;
    for (Subscription ignored : STRIPE.v1().subscriptions().list(params).autoPagingIterable()) {
      total++;
    }
    return total;
  }

  public static void main(String[] args) throws Exception {
    Map<String, Api.Handler> routes = new LinkedHashMap<>();
    routes.put("/subscriptions/([^/]+)/metrics", p -> metrics(
        Api.orNotFound(p.get(0), () -> STRIPE.v1().subscriptions().retrieve(p.get(0)))));
    routes.put("/customers/([^/]+)/subscriptions/summary", p -> {
      String customer = p.get(0);
      SubscriptionListParams firstThree = SubscriptionListParams.builder().setCustomer(customer)
          .setStatus(SubscriptionListParams.Status.ALL).setLimit(3L).build();
      List<String> latest = new ArrayList<>();
      STRIPE.v1().subscriptions().list(firstThree).getData().forEach(s -> latest.add(s.getId()));
      return object("customer", customer,
          "total", count(customer, SubscriptionListParams.Status.ALL),
          "active", count(customer, SubscriptionListParams.Status.ACTIVE), "latest", latest);
    });
    Api.serve("subscriptions", 5103, routes);
  }
}
