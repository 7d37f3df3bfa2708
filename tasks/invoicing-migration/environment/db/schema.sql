-- Aurora Trails' booking database (data/tours.db).
-- Amounts are integers in the currency's smallest unit (cents, pence; yen have none).

CREATE TABLE tours (
  id   TEXT PRIMARY KEY,                      -- 'prod_fjord_kayak': its Stripe Product's id
  name TEXT NOT NULL
);

CREATE TABLE customers (
  id                 TEXT PRIMARY KEY,        -- 'C-100', 'C-101', ...
  email              TEXT NOT NULL UNIQUE,    -- lower case
  name               TEXT NOT NULL,
  stripe_customer_id TEXT                     -- their Stripe Customer, once they have one
);

CREATE TABLE bookings (
  id             TEXT PRIMARY KEY,            -- 'B-1001' (online), the office's ref (phone)
  customer_id    TEXT NOT NULL REFERENCES customers(id),
  product_id     TEXT NOT NULL REFERENCES tours(id),
  tour_date      TEXT NOT NULL,               -- YYYY-MM-DD
  guests         INTEGER NOT NULL,
  currency       TEXT NOT NULL,               -- lower case: 'eur', 'usd', 'gbp', 'jpy'
  amount         INTEGER NOT NULL,            -- the booking's price (all guests)
  amount_paid    INTEGER NOT NULL,            -- what the customer has paid of it
  source         TEXT NOT NULL,               -- 'online' | 'phone'
  status         TEXT NOT NULL,               -- 'complete' | 'refunded' | 'incomplete'
  payment_intent TEXT,                        -- online: the PaymentIntent that paid it
  setup_intent   TEXT,                        -- online, paid later: the SetupIntent that saved the card
  invoice_id     TEXT,                        -- the Stripe Invoice that backs it
  created_at     TEXT NOT NULL                -- YYYY-MM-DD
);
