// A small React storefront on @stripe/react-stripe-js, bundled by esbuild in the tests.
// Nothing here knows about the emulator: loadStripe finds the Stripe.js the page loaded.
import React, {useMemo, useState} from 'react';
import {createRoot} from 'react-dom/client';
import {loadStripe} from '@stripe/stripe-js';
import {
  CardElement, Elements, EmbeddedCheckout, EmbeddedCheckoutProvider, PaymentElement,
  useElements, useStripe,
} from '@stripe/react-stripe-js';

const query = new URLSearchParams(window.location.search);
const stripePromise = loadStripe(query.get('pk'));
const clientSecret = query.get('secret');

function CardForm() {
  const stripe = useStripe();
  const elements = useElements();
  const [message, setMessage] = useState('');
  const [ready, setReady] = useState(false);
  async function pay(event) {
    event.preventDefault();
    const card = elements.getElement(CardElement);
    const {error, paymentIntent} = await stripe.confirmCardPayment(clientSecret, {
      payment_method: {card, billing_details: {name: 'React Customer'}},
    });
    setMessage(error ? `Error: ${error.message}` : `Status: ${paymentIntent.status}`);
  }
  return (
    <form onSubmit={pay} data-ready={ready ? '1' : '0'}>
      <CardElement onReady={() => setReady(true)} options={{hidePostalCode: false}} />
      <button type="submit" disabled={!stripe}>Pay</button>
      <p role="status">{message}</p>
    </form>
  );
}

function PaymentForm() {
  const stripe = useStripe();
  const elements = useElements();
  const [message, setMessage] = useState('');
  const [ready, setReady] = useState(false);
  async function pay(event) {
    event.preventDefault();
    sessionStorage.setItem('pk', query.get('pk'));
    const {error} = await stripe.confirmPayment({
      elements,
      confirmParams: {return_url: new URL('/complete.html', window.location.href).toString()},
    });
    setMessage(`Error: ${error.message}`);
  }
  return (
    <form onSubmit={pay} data-ready={ready ? '1' : '0'}>
      <PaymentElement onReady={() => setReady(true)} />
      <button type="submit" disabled={!stripe}>Pay now</button>
      <p role="alert">{message}</p>
    </form>
  );
}

// Embedded Checkout: react-stripe-js 6+ calls stripe.createEmbeddedCheckoutPage().
function EmbeddedShop() {
  const [done, setDone] = useState(false);
  const options = useMemo(() => ({
    fetchClientSecret: () => Promise.resolve(clientSecret),
    onComplete: () => setDone(true),
  }), []);
  return (
    <div>
      <p role="status">{done ? 'Checkout complete' : 'Checking out'}</p>
      <EmbeddedCheckoutProvider stripe={stripePromise} options={options}>
        <EmbeddedCheckout id="checkout" />
      </EmbeddedCheckoutProvider>
    </div>
  );
}

function App() {
  if (query.get('mode') === 'embedded-checkout') return <EmbeddedShop />;
  if (query.get('mode') === 'payment-element') {
    return (
      <Elements stripe={stripePromise} options={{clientSecret, appearance: {theme: 'stripe'}}}>
        <PaymentForm />
      </Elements>
    );
  }
  return (
    <Elements stripe={stripePromise}>
      <CardForm />
    </Elements>
  );
}

createRoot(document.getElementById('root')).render(<App />);
