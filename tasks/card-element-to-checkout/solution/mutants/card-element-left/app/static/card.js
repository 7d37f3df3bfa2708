// The old Card Element, kept "just in case".
const stripe = Stripe(window.STRIPE_PUBLISHABLE_KEY);
const card = stripe.elements().create("card");
card.mount("#card-element");
