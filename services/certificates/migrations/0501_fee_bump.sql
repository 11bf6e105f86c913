-- Fee bump of stuck transactions (src/chain/replacement.ts). A mint submission or a transfer
-- whose transaction is not mined HALLMARK_CHAIN_REPLACE_AFTER_MS after it was broadcast is
-- signed again with the SAME nonce and higher fees; the new bytes and hash replace raw_tx and
-- tx_hash before the broadcast, and the hash they replace is kept here, oldest first. One
-- nonce means at most one of {tx_hash} ∪ replaced_hashes can be mined; whichever is, is
-- recorded as tx_hash when confirmed (the others stay here). A re-signing with a fresh nonce
-- (the old nonce went to another transaction, so none of its hashes can be mined) also keeps
-- the old hash here.
--
-- sent_at is now the time the CURRENT signed bytes were first accepted by the node (NULL while
-- they are only persisted): the replacement timer counts from it, across restarts.
ALTER TABLE chain_submissions ADD COLUMN replaced_hashes text[] NOT NULL DEFAULT '{}';

ALTER TABLE certificate_transfers ADD COLUMN replaced_hashes text[] NOT NULL DEFAULT '{}';
ALTER TABLE certificate_transfers ADD COLUMN sent_at timestamptz;
-- Transfers sent before this migration: their replacement timer starts from their last update.
UPDATE certificate_transfers SET sent_at = updated_at WHERE status = 'sent';
