-- The burn indexer's checkpoint lives in chain_state (key 'burn-indexer:<chainId>:<contract>',
-- value = last fully indexed block). A burn is recorded at most once per certificate:
CREATE UNIQUE INDEX provenance_one_burn ON provenance (certificate_id) WHERE kind = 'burned';
