-- A key never holds more authority than whoever made it (docs/security.md, finding API5):
-- every key records the user it acts for and that user's role when the key was made. A key
-- made by another key inherits both from it, so authority can only narrow down a chain.
ALTER TABLE api_keys
  ADD COLUMN acts_for     text,
  ADD COLUMN creator_role text CHECK (creator_role IN ('owner', 'admin', 'member'));

-- Existing keys: follow created_by back to the user who started the chain (their role today
-- is the best record of their role then).
WITH RECURSIVE chain AS (
  SELECT k.id, u.id AS acts_for, u.role
    FROM api_keys k JOIN users u ON u.id = k.created_by AND u.enterprise_id = k.enterprise_id
  UNION ALL
  SELECT k.id, c.acts_for, c.role FROM api_keys k JOIN chain c ON k.created_by = c.id
)
UPDATE api_keys k SET acts_for = c.acts_for, creator_role = c.role FROM chain c WHERE c.id = k.id;

-- A key whose maker cannot be traced acts as a member for nobody but itself (fail closed).
UPDATE api_keys SET acts_for = id, creator_role = 'member' WHERE acts_for IS NULL;

ALTER TABLE api_keys
  ALTER COLUMN acts_for SET NOT NULL,
  ALTER COLUMN creator_role SET NOT NULL;
