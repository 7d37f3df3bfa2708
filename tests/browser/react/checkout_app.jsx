// Elements with Checkout Sessions on @stripe/react-stripe-js/checkout, bundled by esbuild
// in the tests: CheckoutElementsProvider calls stripe.initCheckoutElementsSdk().
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import {loadStripe} from '@stripe/stripe-js';
import {
  CheckoutElementsProvider, ContactDetailsElement, PaymentElement, useCheckout,
} from '@stripe/react-stripe-js/checkout';

const query = new URLSearchParams(window.location.search);
const stripePromise = loadStripe(query.get('pk'));

function CheckoutForm() {
  const state = useCheckout();
  const [message, setMessage] = useState('');
  if (state.type === 'loading') return <p>Loading…</p>;
  if (state.type === 'error') return <p role="alert">Error: {state.error.message}</p>;
  const {checkout} = state;
  async function pay(event) {
    event.preventDefault();
    if (query.get('email')) {  // else the Contact Details Element collected it
      const email = await checkout.updateEmail(query.get('email'));
      if (email.type === 'error') { setMessage(`Error: ${email.error.message}`); return; }
    }
    const result = await checkout.confirm({redirect: 'if_required'});
    setMessage(result.type === 'error' ? `Error: ${result.error.message}`
      : `Checkout ${result.session.status.type}`);
  }
  return (
    <form onSubmit={pay}>
      <p data-testid="total">Total {checkout.total.total.amount}</p>
      {query.get('email') ? null : <ContactDetailsElement id="contact" />}
      <p data-testid="email">{checkout.email || ''}</p>
      <PaymentElement />
      <button type="submit">Pay</button>
      <p role="status">{message}</p>
      <p data-testid="session-status">{checkout.status.type}</p>
    </form>
  );
}

createRoot(document.getElementById('root')).render(
  <CheckoutElementsProvider stripe={stripePromise}
                            options={{clientSecret: query.get('secret')}}>
    <CheckoutForm />
  </CheckoutElementsProvider>
);
