"use server";
// Form actions: sign-up, sign-in, sign-out, subscribing, the billing portal.
import { redirect } from "next/navigation";
import { eq } from "drizzle-orm";
import { db } from "@/lib/db";
import { teamMembers, teams, users } from "@/lib/db/schema";
import { endSession, hashPassword, passwordMatches, requireTeam, startSession } from "@/lib/auth";
import { teamForUser } from "@/lib/db/queries";
import { createCheckoutSession, createPortalSession, payNextHalf, stripe }
  from "@/lib/payments/stripe";

// Signing up or in from a plan's button goes straight on to paying for that plan.
async function afterSignIn(user, formData) {
  const priceId = formData.get("priceId");
  if (priceId) {
    const team = await teamForUser(user.id);
    await createCheckoutSession({ user, team, priceId: String(priceId) });
  }
  redirect("/dashboard");
}

export async function signUp(_state, formData) {
  const email = String(formData.get("email") ?? "").trim().toLowerCase();
  const password = String(formData.get("password") ?? "");
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) return { email, error: "Enter a valid email address." };
  if (password.length < 8) return { email, error: "Passwords have at least 8 characters." };
  const existing = await db.select().from(users).where(eq(users.email, email)).limit(1);
  if (existing.length) return { email, error: "An account with this email already exists." };
  const [user] = await db.insert(users)
    .values({ email, passwordHash: await hashPassword(password) }).returning();
  const [team] = await db.insert(teams).values({ name: `${email}'s team` }).returning();
  await db.insert(teamMembers).values({ userId: user.id, teamId: team.id, role: "owner" });
  await startSession(user.id);
  await afterSignIn(user, formData);
}

export async function signIn(_state, formData) {
  const email = String(formData.get("email") ?? "").trim().toLowerCase();
  const password = String(formData.get("password") ?? "");
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user || !(await passwordMatches(password, user.passwordHash))) {
    return { email, error: "Wrong email or password." };
  }
  await startSession(user.id);
  await afterSignIn(user, formData);
}

export async function signOut() {
  await endSession();
  redirect("/");
}

export async function checkoutAction(formData) {
  const { user, team } = await requireTeam();
  await createCheckoutSession({ user, team, priceId: String(formData.get("priceId")) });
}

export async function portalAction() {
  const { team } = await requireTeam();
  await createPortalSession(team);
}

/** The second half of the team's open first invoice, on hosted Checkout. */
export async function payRemainingAction() {
  const { user, team } = await requireTeam();
  const subscription = await stripe.subscriptions.retrieve(team.stripeSubscriptionId);
  redirect(await payNextHalf(subscription.latest_invoice, user.id));
}
