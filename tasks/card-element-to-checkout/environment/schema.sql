-- Basecamp Goods: inventory, discount codes and orders.
CREATE TABLE IF NOT EXISTS products (
    sku TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    unit_amount INTEGER NOT NULL,          -- cents
    currency TEXT NOT NULL DEFAULT 'usd',
    stock INTEGER NOT NULL,
    stripe_lookup_key TEXT NOT NULL UNIQUE -- the Stripe Price with this lookup_key sells it
);

CREATE TABLE IF NOT EXISTS discount_codes (
    code TEXT PRIMARY KEY,
    percent_off INTEGER,                   -- one of percent_off / amount_off
    amount_off INTEGER,                    -- cents
    active INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    email TEXT,
    shipping_name TEXT,
    shipping_address TEXT,                 -- JSON
    items TEXT NOT NULL,                   -- JSON: [{sku, quantity, unit_amount}]
    subtotal INTEGER NOT NULL,
    discount_code TEXT,
    discount INTEGER NOT NULL DEFAULT 0,
    shipping INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL,
    stripe_reference TEXT,                 -- the payment's Stripe id
    status TEXT NOT NULL DEFAULT 'paid'
);
