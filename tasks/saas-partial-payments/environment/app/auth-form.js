"use client";
import { useActionState } from "react";

export default function AuthForm({ action, priceId, label }) {
  // React resets the form after an action: the email typed comes back from the state.
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="stack">
      <input type="hidden" name="priceId" value={priceId ?? ""} />
      <label>Email <input name="email" type="email" required autoComplete="email"
        defaultValue={state?.email ?? ""} /></label>
      <label>Password <input name="password" type="password" required minLength={8} /></label>
      {state?.error && <p className="error">{state.error}</p>}
      <button type="submit" disabled={pending}>{label}</button>
    </form>
  );
}
