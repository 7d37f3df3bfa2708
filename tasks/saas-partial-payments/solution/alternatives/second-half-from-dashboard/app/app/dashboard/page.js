import Link from "next/link";
import { requireTeam } from "@/lib/auth";
import { payRemainingAction, portalAction } from "../actions";

export const dynamic = "force-dynamic";

export default async function DashboardPage() {
  const { user, team } = await requireTeam();
  return (
    <section className="card">
      <h1>{team.name}</h1>
      <dl>
        <dt>Signed in as</dt><dd>{user.email}</dd>
        <dt>Plan</dt><dd data-testid="plan">{team.planName ?? "Free"}</dd>
        <dt>Subscription</dt><dd data-testid="status">{team.subscriptionStatus ?? "none"}</dd>
      </dl>
      {team.subscriptionStatus === "incomplete" && (
        <form action={payRemainingAction}><button type="submit">Pay the second half</button></form>
      )}
      {team.stripeCustomerId ? (
        <form action={portalAction}><button type="submit">Manage subscription</button></form>
      ) : (
        <Link href="/pricing" className="button">Choose a plan</Link>
      )}
    </section>
  );
}
