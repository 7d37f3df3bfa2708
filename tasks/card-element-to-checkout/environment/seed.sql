INSERT OR IGNORE INTO products VALUES
  ('MUG-ENAMEL', 'Enamel Camp Mug', '12 oz speckled enamel mug that survives a campfire.', 1800, 'usd', 40, 'camp_mug'),
  ('POSTER-MAP', 'Trail Map Poster', '18 x 24 in print of the Front Range trail network.', 2500, 'usd', 25, 'map_poster'),
  ('BEANIE-WOOL', 'Wool Beanie', 'Ribbed merino beanie, one size.', 3200, 'usd', 30, 'wool_beanie');
INSERT OR IGNORE INTO discount_codes (code, percent_off, amount_off) VALUES
  ('TRAIL10', 10, NULL),
  ('WELCOME5', NULL, 500);
