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

/**
 * Subscribes the team to `priceId` with no trial, its first invoice paid in two halves:
 * the subscription starts incomplete with that invoice open, and the customer pays
 * each half on hosted Checkout (see `payNextHalf` and /api/stripe/split).
 */
export async function createCheckoutSession({ user, team, priceId }) {
  let customerId = team.stripeCustomerId;
  if (!customerId) {
    const customer = await stripe.customers.create({
      email: user.email, metadata: { team_id: String(team.id) },
    });
    customerId = customer.id;
  }
  const subscription = await stripe.subscriptions.create({
    customer: customerId,
    items: [{ price: priceId }],
    payment_behavior: "default_incomplete",
    metadata: { team_id: String(team.id) },
    expand: ["items.data.price.product"],
  });
  await updateTeamSubscription(team.id, {
    stripeCustomerId: customerId, ...subscriptionFields(subscription),
  });
  redirect(await payNextHalf(subscription.latest_invoice, user.id));
}

/** A hosted Checkout Session for the next half of the invoice (the rest, if less). */
export async function payNextHalf(invoiceId, userId) {
  const invoice = await stripe.invoices.retrieve(invoiceId);
  const half = Math.ceil(invoice.amount_due / 2);
  const amount = invoice.amount_remaining;
  const session = await stripe.checkout.sessions.create({
    mode: "payment",
    customer: invoice.customer,
    client_reference_id: String(userId),
    line_items: [{
      quantity: 1,
      price_data: {
        currency: invoice.currency,
        unit_amount: amount,
        product_data: { name: `Half of invoice ${invoice.number ?? invoice.id}` },
      },
    }],
    metadata: { invoice: invoice.id },
    payment_intent_data: { metadata: { invoice: invoice.id } },
    success_url: `${baseUrl()}/api/stripe/split?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${baseUrl()}/dashboard`,
  });
  return session.url;
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
