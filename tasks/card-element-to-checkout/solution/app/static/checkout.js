// Embedded Checkout: the server creates the session, Stripe.js mounts the form.
const stripe = Stripe(window.STRIPE_PUBLISHABLE_KEY);

async function fetchClientSecret() {
  const response = await fetch("/create-checkout-session", { method: "POST" });
  const { clientSecret } = await response.json();
  return clientSecret;
}

stripe.initEmbeddedCheckout({ fetchClientSecret }).then((checkout) => {
  checkout.mount("#checkout");
});
