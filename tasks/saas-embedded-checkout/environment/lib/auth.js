// Email + password accounts: scrypt hashes, and a random session token in an httpOnly
// cookie that points at a row of the sessions table.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { eq } from "drizzle-orm";
import { db } from "@/lib/db";
import { sessions } from "@/lib/db/schema";
import { teamForUser, userForSession } from "@/lib/db/queries";

const scrypt = promisify(scryptCallback);
const COOKIE = "session";
const SESSION_DAYS = 7;

export async function hashPassword(password) {
  const salt = randomBytes(16).toString("hex");
  const key = await scrypt(password, salt, 32);
  return `${salt}:${key.toString("hex")}`;
}

export async function passwordMatches(password, stored) {
  const [salt, hex] = stored.split(":");
  const key = await scrypt(password, salt, 32);
  const expected = Buffer.from(hex, "hex");
  return expected.length === key.length && timingSafeEqual(expected, key);
}

export async function startSession(userId) {
  const token = randomBytes(32).toString("hex");
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 86400_000);
  await db.insert(sessions).values({ token, userId, expiresAt });
  (await cookies()).set(COOKIE, token, {
    httpOnly: true, sameSite: "lax", path: "/", expires: expiresAt,
  });
}

export async function endSession() {
  const jar = await cookies();
  const token = jar.get(COOKIE)?.value;
  if (token) await db.delete(sessions).where(eq(sessions.token, token));
  jar.delete(COOKIE);
}

export async function currentUser() {
  return userForSession((await cookies()).get(COOKIE)?.value);
}

/** The signed-in user and their team, or a redirect to sign-in. */
export async function requireTeam() {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  const team = await teamForUser(user.id);
  if (!team) throw new Error(`user ${user.id} has no team`);
  return { user, team };
}
