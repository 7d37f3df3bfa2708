import Link from "next/link";
import AuthForm from "../auth-form";
import { signUp } from "../actions";

export default async function SignUpPage({ searchParams }) {
  const { priceId } = await searchParams;
  return (
    <section>
      <h1>Create your account</h1>
      <AuthForm action={signUp} priceId={priceId} label="Sign up" />
      <p>Already have an account? <Link href="/sign-in">Sign in</Link></p>
    </section>
  );
}
