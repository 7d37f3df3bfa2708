// Everything the app asks of Stripe: the plans, Checkout, the billing portal, and
// keeping a team's subscription in step with Stripe's.
import Stripe from "stripe";
import { redirect } from "next/navigation";
import { teamByStripeCustomer, updateTeamSubscription } from "@/lib/db/queries";

// STRIPE_API_BASE (optional): where the API is, on machines without Stripe's host names.
function apiHost() {
  const base = process.env.STRIPE_API_BASE;
  if (!base) return {};
  const url = new URL(base);
  return { host: url.hostname, port: url.port, protocol: url.protocol.replace(":", "") };
}

export const stripe = new Stripe(process.env.STRIPE_SECRET_KEY, apiHost());

export const TRIAL_DAYS = 14;

export function baseUrl() {
  return process.env.BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
}

/** The active monthly plans, cheapest first, with their products. */
export async function getPlans() {
  const prices = await stripe.prices.list({
    active: true, type: "recurring", expand: ["data.product"], limit: 10,
  });
  return prices.data
    .filter((price) => typeof price.product === "object" && price.product.active)
    .map((price) => ({
      priceId: price.id,
      name: price.product.name,
      description: price.product.description,
      amount: price.unit_amount,
      currency: price.currency,
      interval: price.recurring.interval,
    }))
    .sort((a, b) => a.amount - b.amount);
}

/** An embedded Checkout Session for the team's subscription to `priceId`: its client
 * secret, for the /checkout page to mount. */
export async function createCheckoutSession({ user, team, priceId }) {
  const session = await stripe.checkout.sessions.create({
    ui_mode: "embedded_page",
    mode: "subscription",
    line_items: [{ price: priceId, quantity: 1 }],
    return_url: `${baseUrl()}/api/stripe/checkout?session_id={CHECKOUT_SESSION_ID}`,
    customer: team.stripeCustomerId ?? undefined,
    customer_email: team.stripeCustomerId ? undefined : user.email,
    client_reference_id: String(user.id),
    allow_promotion_codes: true,
  });
  return session.client_secret;
}

export async function createPortalSession(team) {
  if (!team.stripeCustomerId) redirect("/pricing");
  const session = await stripe.billingPortal.sessions.create({
    customer: team.stripeCustomerId,
    return_url: `${baseUrl()}/dashboard`,
  });
  redirect(session.url);
}

/** What the team row keeps of a subscription (its items' prices expanded to products). */
export function subscriptionFields(subscription) {
  const product = subscription.items.data[0]?.price?.product;
  const ended = subscription.status === "canceled" || subscription.status === "unpaid";
  return {
    stripeSubscriptionId: ended ? null : subscription.id,
    stripeProductId: ended ? null : (typeof product === "object" ? product.id : product),
    planName: ended ? null : (typeof product === "object" ? product.name : null),
    subscriptionStatus: subscription.status,
  };
}

/** A subscription changed at Stripe (webhook): bring its team's row in step. */
export async function handleSubscriptionChange(subscription) {
  const customerId = typeof subscription.customer === "string"
    ? subscription.customer : subscription.customer.id;
  const team = await teamByStripeCustomer(customerId);
  if (!team) return;
  const full = await stripe.subscriptions.retrieve(subscription.id, {
    expand: ["items.data.price.product"],
  });
  await updateTeamSubscription(team.id, subscriptionFields(full));
}
