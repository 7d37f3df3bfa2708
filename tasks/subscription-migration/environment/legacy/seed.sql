INSERT INTO plans VALUES
    ('starter_monthly',   'Starter, monthly',     900, 'month'),
    ('starter_yearly',    'Starter, yearly',     9000, 'year'),
    ('team_monthly',      'Team, monthly',       2900, 'month'),
    ('team_yearly',       'Team, yearly',       29000, 'year'),
    ('business_monthly',  'Business, monthly',   9900, 'month'),
    ('business_yearly',   'Business, yearly',   99000, 'year');

INSERT INTO customers VALUES
    ('C1001', 'ada@analytical.example',      'Ada Lovelace',      'pm_card_visa',       NULL, '2024-03-09'),
    ('C1002', 'grace@cobol.example',         'Grace Hopper',      'pm_card_mastercard', NULL, '2024-05-17'),
    ('C1003', 'alan@bletchley.example',      'Alan Turing',       'pm_card_visa',       NULL, '2023-08-02'),
    ('C1004', 'katherine@langley.example',   'Katherine Johnson', 'pm_card_amex',       NULL, '2023-02-11'),
    ('C1005', 'edsger@eindhoven.example',    'Edsger Dijkstra',   'pm_card_visa',       NULL, '2025-12-31'),
    ('C1006', 'barbara@clu.example',         'Barbara Liskov',    'pm_card_mastercard', 20,   '2022-05-20'),
    ('C1007', 'donald@taocp.example',        'Donald Knuth',      'pm_card_visa',       NULL, '2025-12-22'),
    ('C1008', 'frances@ptran.example',       'Frances Allen',     'pm_card_mastercard', NULL, '2024-10-05'),
    ('C1009', 'john@fortran.example',        'John Backus',       'pm_card_visa',       NULL, '2023-04-15'),
    ('C1010', 'radia@spanningtree.example',  'Radia Perlman',     'pm_card_amex',       NULL, '2024-09-28');

INSERT INTO subscriptions VALUES
    ('S2001', 'C1001', 'starter_monthly',  1,  'active',   NULL,         '2026-01-09', NULL),
    ('S2002', 'C1002', 'team_monthly',     5,  'active',   NULL,         '2026-01-17', NULL),
    ('S2003', 'C1003', 'team_yearly',      3,  'active',   NULL,         '2026-08-02', NULL),
    ('S2004', 'C1004', 'starter_monthly',  1,  'canceled', NULL,         NULL,         '2025-06-30'),
    ('S2005', 'C1004', 'business_monthly', 1,  'active',   NULL,         '2026-01-24', NULL),
    ('S2006', 'C1005', 'team_monthly',     2,  'trialing', '2026-01-14', '2026-01-14', NULL),
    ('S2007', 'C1006', 'team_yearly',      10, 'active',   NULL,         '2026-05-20', NULL),
    ('S2008', 'C1007', 'starter_yearly',   1,  'trialing', '2026-01-21', '2026-01-21', NULL),
    ('S2009', 'C1008', 'starter_monthly',  1,  'past_due', NULL,         '2026-01-05', NULL),
    ('S2010', 'C1009', 'team_monthly',     4,  'canceled', NULL,         NULL,         '2025-12-15'),
    ('S2011', 'C1010', 'team_monthly',     8,  'active',   NULL,         '2026-01-28', NULL);
