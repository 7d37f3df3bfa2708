// Checkout's success_url: records the new subscription on the team, then the dashboard.
import { NextResponse } from "next/server";
import { teamForUser, updateTeamSubscription } from "@/lib/db/queries";
import { baseUrl, stripe, subscriptionFields } from "@/lib/payments/stripe";

export async function GET(request) {
  const sessionId = request.nextUrl.searchParams.get("session_id");
  if (!sessionId) return NextResponse.redirect(new URL("/pricing", baseUrl()));
  const session = await stripe.checkout.sessions.retrieve(sessionId, {
    expand: ["customer", "subscription"],
  });
  if (session.payment_status !== "paid") {
    return NextResponse.redirect(new URL("/dashboard", baseUrl()));
  }
  if (!session.subscription || !session.client_reference_id) {
    return new Response("This Checkout Session has no subscription.", { status: 400 });
  }
  const subscription = await stripe.subscriptions.retrieve(session.subscription.id, {
    expand: ["items.data.price.product"],
  });
  const team = await teamForUser(Number(session.client_reference_id));
  if (!team) return new Response("No team for this Checkout Session.", { status: 400 });
  await updateTeamSubscription(team.id, {
    stripeCustomerId: session.customer.id,
    ...subscriptionFields(subscription),
  });
  return NextResponse.redirect(new URL("/dashboard", baseUrl()));
}
