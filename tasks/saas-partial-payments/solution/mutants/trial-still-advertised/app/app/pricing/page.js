import Link from "next/link";
import { currentUser } from "@/lib/auth";
import { getPlans } from "@/lib/payments/stripe";
import { checkoutAction } from "../actions";

export const dynamic = "force-dynamic";

function money(amount, currency) {
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(amount / 100);
}

export default async function PricingPage() {
  const [plans, user] = await Promise.all([getPlans(), currentUser()]);
  return (
    <section>
      <h1>Pricing</h1>
      <div className="plans">
        {plans.map((plan) => (
          <div className="card" key={plan.priceId} data-plan={plan.name}>
            <h2>{plan.name}</h2>
            <p>{plan.description}</p>
            <p className="price">{money(plan.amount, plan.currency)}<small>/{plan.interval}</small></p>
            <p>14-day free trial</p>
            {user ? (
              <form action={checkoutAction}>
                <input type="hidden" name="priceId" value={plan.priceId} />
                <button type="submit">Subscribe to {plan.name}</button>
              </form>
            ) : (
              <Link className="button" href={`/sign-up?priceId=${plan.priceId}`}>
                Subscribe to {plan.name}
              </Link>
            )}
          </div>
        ))}
      </div>
    </section>
  );
}
