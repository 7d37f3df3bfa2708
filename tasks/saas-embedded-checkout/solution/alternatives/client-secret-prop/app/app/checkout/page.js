import { redirect } from "next/navigation";
import { requireTeam } from "@/lib/auth";
import { createCheckoutSession } from "@/lib/payments/stripe";
import EmbeddedCheckoutForm from "./embedded-checkout";

export const dynamic = "force-dynamic";

export default async function CheckoutPage({ searchParams }) {
  const { user, team } = await requireTeam();
  const { priceId } = await searchParams;
  if (!priceId) redirect("/pricing");
  const clientSecret = await createCheckoutSession({ user, team, priceId: String(priceId) });
  return (
    <section>
      <h1>Subscribe</h1>
      <EmbeddedCheckoutForm clientSecret={clientSecret}
                            publishableKey={process.env.STRIPE_PUBLISHABLE_KEY} />
    </section>
  );
}
