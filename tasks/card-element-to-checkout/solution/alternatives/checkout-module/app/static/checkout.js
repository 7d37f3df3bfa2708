// Embedded Checkout: the session comes from the shop's server.
const stripe = Stripe(window.STRIPE_PUBLISHABLE_KEY);
const checkout = await stripe.initEmbeddedCheckout({
  fetchClientSecret: () => fetch("/api/checkout-session").then((r) => r.json())
    .then((body) => body.secret),
});
checkout.mount("#checkout");
