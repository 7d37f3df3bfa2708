import { redirect } from "next/navigation";
import { requireTeam } from "@/lib/auth";
import EmbeddedCheckoutForm from "./embedded-checkout";

export const dynamic = "force-dynamic";

export default async function CheckoutPage({ searchParams }) {
  await requireTeam();
  const { priceId } = await searchParams;
  if (!priceId) redirect("/pricing");
  return (
    <section>
      <h1>Subscribe</h1>
      <EmbeddedCheckoutForm priceId={priceId}
                            publishableKey={process.env.STRIPE_PUBLISHABLE_KEY} />
    </section>
  );
}
