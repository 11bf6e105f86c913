-- Who asked for each allowlist address (docs/security.md › Allowlist). The on-chain fact is
-- public, but an entry's request details (status, error, retries, transaction) are shown
-- only to an enterprise that asked for the address: by POST /api/v1/allowlist or through
-- one of its users' provisioning. Several enterprises may ask for the same address.
CREATE TABLE allowlist_requesters (
  address       text NOT NULL REFERENCES allowlist_entries (address),
  enterprise_id text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (address, enterprise_id)
);

INSERT INTO allowlist_requesters (address, enterprise_id, created_at)
SELECT address, requested_by, created_at FROM allowlist_entries WHERE requested_by IS NOT NULL
ON CONFLICT DO NOTHING;
