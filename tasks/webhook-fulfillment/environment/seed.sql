INSERT INTO products (sku, name, stripe_lookup_key, stock) VALUES
    ('sencha', 'Uji Sencha, 100 g tin', 'tea_sencha', 40),
    ('assam', 'Malty Assam, 100 g tin', 'tea_assam', 40),
    ('rooibos', 'Vanilla Rooibos, 100 g tin', 'tea_rooibos', 40);
