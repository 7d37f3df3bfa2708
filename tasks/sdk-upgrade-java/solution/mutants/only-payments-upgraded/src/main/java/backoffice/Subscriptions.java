package backoffice;

import static backoffice.Api.STRIPE;
import static backoffice.Api.object;

import com.google.gson.JsonElement;
import com.stripe.model.Price;
import com.stripe.model.StripeCollection;
import com.stripe.model.Subscription;
import com.stripe.model.SubscriptionItem;
import com.stripe.net.RequestOptions;
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

  // Kept on the API version the service was written for: stripe-java 33 sends it when
  // told to, and the fields it reads come from each answer's JSON.
  static final RequestOptions OLD = RequestOptions.RequestOptionsBuilder
      .unsafeSetStripeVersionOverride(RequestOptions.builder(), "2020-08-27").build();

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

  static Map<String, Object> metrics(Subscription sub) {
    List<Map<String, Object>> items = new ArrayList<>();
    long total = 0;
    for (SubscriptionItem item : sub.getItems().getData()) {
      long amount = monthly(item.getPrice(), item.getQuantity());
      items.add(object("price", item.getPrice().getId(), "quantity", item.getQuantity(),
          "interval", item.getPrice().getRecurring().getInterval(), "monthly_amount", amount));
      total += amount;
    }
    long start = sub.getRawJsonObject().get("current_period_start").getAsLong();
    long end = sub.getRawJsonObject().get("current_period_end").getAsLong();
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

  /** One page of the customer's subscriptions, with the count of all of them. */
  static StripeCollection<Subscription> page(String customer,
      SubscriptionListParams.Status status, long limit) throws Exception {
    return STRIPE.v1().subscriptions().list(SubscriptionListParams.builder()
        .setCustomer(customer).setStatus(status).setLimit(limit)
        .putExtraParam("include", List.of("total_count")).build(), OLD);
  }

  static long totalCount(StripeCollection<Subscription> page) {
    JsonElement count = page.getRawJsonObject().get("total_count");
    return count.getAsLong();
  }

  public static void main(String[] args) throws Exception {
    Map<String, Api.Handler> routes = new LinkedHashMap<>();
    routes.put("/subscriptions/([^/]+)/metrics", p -> metrics(
        Api.orNotFound(p.get(0), () -> STRIPE.v1().subscriptions().retrieve(p.get(0), OLD))));
    routes.put("/customers/([^/]+)/subscriptions/summary", p -> {
      String customer = p.get(0);
      StripeCollection<Subscription> every =
          page(customer, SubscriptionListParams.Status.ALL, 3);
      StripeCollection<Subscription> active =
          page(customer, SubscriptionListParams.Status.ACTIVE, 1);
      List<String> latest = new ArrayList<>();
      every.getData().forEach(s -> latest.add(s.getId()));
      return object("customer", customer, "total", totalCount(every),
          "active", totalCount(active), "latest", latest);
    });
    Api.serve("subscriptions", 5103, routes);
  }
}
