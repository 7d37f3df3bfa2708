// A new embedded Checkout Session for the signed-in user's team: its client secret.
import { NextResponse } from "next/server";
import { currentUser } from "@/lib/auth";
import { teamForUser } from "@/lib/db/queries";
import { createCheckoutSession } from "@/lib/payments/stripe";

export async function POST(request) {
  const user = await currentUser();
  if (!user) return NextResponse.json({ error: "sign in first" }, { status: 401 });
  const { priceId } = await request.json();
  const team = await teamForUser(user.id);
  const clientSecret = await createCheckoutSession({ user, team, priceId: String(priceId) });
  return NextResponse.json({ clientSecret });
}
