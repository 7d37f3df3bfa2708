import Link from "next/link";
import AuthForm from "../auth-form";
import { signIn } from "../actions";

export default async function SignInPage({ searchParams }) {
  const { priceId } = await searchParams;
  return (
    <section>
      <h1>Sign in</h1>
      <AuthForm action={signIn} priceId={priceId} label="Sign in" />
      <p>New here? <Link href="/sign-up">Create an account</Link></p>
    </section>
  );
}
