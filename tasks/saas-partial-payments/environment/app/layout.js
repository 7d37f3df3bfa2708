import Link from "next/link";
import "./globals.css";
import { currentUser } from "@/lib/auth";
import { signOut } from "./actions";

export const metadata = { title: "Launchpad", description: "Team workspaces, billed monthly" };

export default async function RootLayout({ children }) {
  const user = await currentUser();
  return (
    <html lang="en">
      <body>
        <header>
          <Link href="/" className="brand">Launchpad</Link>
          <Link href="/pricing">Pricing</Link>
          {user ? (
            <>
              <Link href="/dashboard">Dashboard</Link>
              <form action={signOut}><button type="submit">Sign out</button></form>
            </>
          ) : (
            <>
              <Link href="/sign-in">Sign in</Link>
              <Link href="/sign-up" className="button">Sign up</Link>
            </>
          )}
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
