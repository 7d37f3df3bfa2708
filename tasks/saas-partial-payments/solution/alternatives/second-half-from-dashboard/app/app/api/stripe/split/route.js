// Each half's Checkout success_url: attaches the half's payment to the subscription's
// first invoice, then sends the customer on to the other half, or, once the invoice is
// paid, records the now active subscription on the team.
import { NextResponse } from "next/server";
import { teamByStripeCustomer, updateTeamSubscription } from "@/lib/db/queries";
import { baseUrl, payNextHalf, stripe, subscriptionFields } from "@/lib/payments/stripe";

export async function GET(request) {
  const sessionId = request.nextUrl.searchParams.get("session_id");
  if (!sessionId) return NextResponse.redirect(new URL("/pricing", baseUrl()));
  const session = await stripe.checkout.sessions.retrieve(sessionId);
  const invoiceId = session.metadata?.invoice;
  if (session.status !== "complete" || session.payment_status !== "paid" || !invoiceId) {
    return new Response("This Checkout Session has not paid part of an invoice.", { status: 400 });
  }
  let invoice = await stripe.invoices.retrieve(invoiceId);
  const payments = await stripe.invoicePayments.list({ invoice: invoiceId, limit: 10 });
  const attached = payments.data.some(
    (payment) => payment.payment?.payment_intent === session.payment_intent);
  if (!attached && invoice.status === "open") {
    invoice = await stripe.invoices.attachPayment(invoiceId, {
      payment_intent: session.payment_intent,
    });
  }
  if (invoice.status === "open" && invoice.amount_remaining > 0) {
    return NextResponse.redirect(new URL("/dashboard", baseUrl()));
  }
  const team = await teamByStripeCustomer(session.customer);
  if (team?.stripeSubscriptionId) {
    const subscription = await stripe.subscriptions.retrieve(team.stripeSubscriptionId, {
      expand: ["items.data.price.product"],
    });
    await updateTeamSubscription(team.id, subscriptionFields(subscription));
  }
  return NextResponse.redirect(new URL("/dashboard", baseUrl()));
}
