-- Acme Notes' in-house billing: one row per customer, one per subscription, the plans.
CREATE TABLE plans (
    code         TEXT PRIMARY KEY,      -- e.g. team_monthly
    name         TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,      -- per seat and per interval, USD
    interval     TEXT NOT NULL CHECK (interval IN ('month', 'year'))
);

CREATE TABLE customers (
    id               TEXT PRIMARY KEY,  -- our customer number, e.g. C1001
    email            TEXT NOT NULL,
    name             TEXT NOT NULL,
    card_token       TEXT NOT NULL,     -- the card on file, as the gateway's test token
    discount_percent INTEGER,           -- a negotiated discount off every renewal, forever
    created_on       TEXT NOT NULL      -- YYYY-MM-DD
);

CREATE TABLE subscriptions (
    id              TEXT PRIMARY KEY,   -- e.g. S2001
    customer_id     TEXT NOT NULL REFERENCES customers(id),
    plan_code       TEXT NOT NULL REFERENCES plans(code),
    seats           INTEGER NOT NULL DEFAULT 1,
    status          TEXT NOT NULL CHECK (status IN ('active', 'trialing', 'past_due',
                                                    'canceled')),
    trial_ends_on   TEXT,               -- YYYY-MM-DD (UTC), trialing subscriptions only
    next_renewal_on TEXT,               -- YYYY-MM-DD (UTC): the next charge; NULL once canceled
    canceled_on     TEXT                -- YYYY-MM-DD, canceled subscriptions only
);
