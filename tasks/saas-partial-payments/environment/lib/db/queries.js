import { and, eq, gt } from "drizzle-orm";
import { db } from "./index.js";
import { sessions, teamMembers, teams, users } from "./schema.js";

export async function userForSession(token) {
  if (!token) return null;
  const rows = await db.select({ user: users }).from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.token, token), gt(sessions.expiresAt, new Date())))
    .limit(1);
  return rows[0]?.user ?? null;
}

export async function teamForUser(userId) {
  const rows = await db.select({ team: teams }).from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.userId, userId))
    .limit(1);
  return rows[0]?.team ?? null;
}

export async function teamByStripeCustomer(customerId) {
  const rows = await db.select().from(teams).where(eq(teams.stripeCustomerId, customerId))
    .limit(1);
  return rows[0] ?? null;
}

export async function updateTeamSubscription(teamId, fields) {
  await db.update(teams).set({ ...fields, updatedAt: new Date() }).where(eq(teams.id, teamId));
}
