-- Which key the recipient e-mail index (migration 3401) was last made under in whole. After a
-- rotation of HALLMARK_ENCRYPTION_KEYS the search slice's backfill worker sees a newer key here,
-- makes every row's index again under it and then records it: so the old key can be dropped
-- (rotate-encryption-keys.md) without search by e-mail losing the rows written before.
CREATE TABLE search_state (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
