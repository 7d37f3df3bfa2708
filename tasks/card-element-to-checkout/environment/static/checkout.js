// Card Element checkout: create a PaymentMethod in the browser, confirm on the server.
const stripe = Stripe(window.STRIPE_PUBLISHABLE_KEY);
const elements = stripe.elements();
const card = elements.create("card", { hidePostalCode: true });
card.mount("#card-element");

const form = document.getElementById("payment-form");
const message = document.getElementById("payment-message");
const payButton = document.getElementById("pay");

async function post(body) {
  const response = await fetch("/pay", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.json();
}

async function handle(result) {
  if (result.error) {
    message.textContent = result.error;
    payButton.disabled = false;
  } else if (result.requires_action) {
    const { error, paymentIntent } = await stripe.handleCardAction(result.client_secret);
    if (error) {
      message.textContent = error.message;
      payButton.disabled = false;
    } else {
      await handle(await post({ payment_intent_id: paymentIntent.id }));
    }
  } else {
    window.location.href = "/orders/" + result.order_id;
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  payButton.disabled = true;
  message.textContent = "";
  const shipping = Object.fromEntries(new FormData(form).entries());
  const { error, paymentMethod } = await stripe.createPaymentMethod({
    type: "card",
    card,
    billing_details: { name: shipping.name, email: shipping.email },
  });
  if (error) {
    message.textContent = error.message;
    payButton.disabled = false;
    return;
  }
  await handle(await post({ payment_method_id: paymentMethod.id, shipping }));
});
