// Stripe's events about subscriptions (STRIPE_WEBHOOK_SECRET in .env verifies them).
import { handleSubscriptionChange, stripe } from "@/lib/payments/stripe";

export async function POST(request) {
  const payload = await request.text();
  let event;
  try {
    event = stripe.webhooks.constructEvent(payload, request.headers.get("stripe-signature"),
                                           process.env.STRIPE_WEBHOOK_SECRET);
  } catch (err) {
    return Response.json({ error: `Webhook signature verification failed: ${err.message}` },
                         { status: 400 });
  }
  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      await handleSubscriptionChange(event.data.object);
      break;
    default:
      break;
  }
  return Response.json({ received: true });
}
