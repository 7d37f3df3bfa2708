"use client";
import { useCallback, useMemo } from "react";
import { loadStripe } from "@stripe/stripe-js";
import { EmbeddedCheckout, EmbeddedCheckoutProvider } from "@stripe/react-stripe-js";

export default function EmbeddedCheckoutForm({ priceId, publishableKey }) {
  const stripePromise = useMemo(() => loadStripe(publishableKey), [publishableKey]);
  const fetchClientSecret = useCallback(async () => {
    const answer = await fetch("/api/stripe/embedded-session", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ priceId }),
    });
    return (await answer.json()).clientSecret;
  }, [priceId]);
  return (
    <div id="checkout">
      <EmbeddedCheckoutProvider stripe={stripePromise} options={{ fetchClientSecret }}>
        <EmbeddedCheckout />
      </EmbeddedCheckoutProvider>
    </div>
  );
}
