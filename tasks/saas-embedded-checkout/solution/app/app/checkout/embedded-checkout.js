"use client";
import { useCallback, useMemo } from "react";
import { loadStripe } from "@stripe/stripe-js";
import { EmbeddedCheckout, EmbeddedCheckoutProvider } from "@stripe/react-stripe-js";
import { checkoutClientSecret } from "../actions";

export default function EmbeddedCheckoutForm({ priceId, publishableKey }) {
  const stripePromise = useMemo(() => loadStripe(publishableKey), [publishableKey]);
  const fetchClientSecret = useCallback(() => checkoutClientSecret(priceId), [priceId]);
  return (
    <div id="checkout">
      <EmbeddedCheckoutProvider stripe={stripePromise} options={{ fetchClientSecret }}>
        <EmbeddedCheckout />
      </EmbeddedCheckoutProvider>
    </div>
  );
}
