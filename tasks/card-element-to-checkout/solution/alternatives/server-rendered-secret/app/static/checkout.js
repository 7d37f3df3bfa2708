// Embedded Checkout for the session /checkout made on the server.
Stripe(window.STRIPE_PUBLISHABLE_KEY)
  .initEmbeddedCheckout({ clientSecret: window.CHECKOUT_CLIENT_SECRET })
  .then((checkout) => checkout.mount("#checkout"));
