-- ERC-4906 metadata updates (src/metadata-updates/): changes to what a certificate's tokenURI
-- metadata answers, queued in the transaction that makes them, and the relayer's announcements
-- of them on chain (announceMetadataUpdate), journaled like mint submissions so a killed
-- process re-sends or recognises its transaction and never loses an update.

-- One announcement transaction: the coalesced ranges it carries, and its signing state (the
-- TxJournal of ../src/chain/tx-sender.ts: persisted before each broadcast).
CREATE TABLE metadata_announcements (
  id               bigserial PRIMARY KEY,
  contract_address text NOT NULL,
  -- [[from, to], ...] inclusive token id ranges, as decimal strings.
  ranges           jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'signed', 'sent', 'confirmed', 'failed')),
  signer           text,
  nonce            bigint,
  raw_tx           text,
  tx_hash          text,
  replaced_hashes  text[] NOT NULL DEFAULT '{}',
  block_number     bigint,
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz,
  confirmed_at     timestamptz
);
CREATE INDEX metadata_announcements_open ON metadata_announcements (id)
  WHERE status IN ('pending', 'signed', 'sent');

-- One queued change. A certificate not minted yet has no token id: the row names the
-- certificate and waits until the mint records its token. `announcement_id` is set when an
-- announcement takes the row (in the transaction that creates the announcement).
CREATE TABLE metadata_updates (
  id               bigserial PRIMARY KEY,
  enterprise_id    text,
  certificate_id   text REFERENCES certificates (id),
  from_token_id    numeric(78, 0),
  to_token_id      numeric(78, 0),
  reason           text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 64),
  announcement_id  bigint REFERENCES metadata_announcements (id),
  queued_at        timestamptz NOT NULL DEFAULT now(),
  CHECK (certificate_id IS NOT NULL OR (from_token_id IS NOT NULL AND to_token_id IS NOT NULL)),
  CHECK (from_token_id IS NULL OR (from_token_id >= 1 AND to_token_id >= from_token_id))
);
CREATE INDEX metadata_updates_queued ON metadata_updates (id) WHERE announcement_id IS NULL;
CREATE INDEX metadata_updates_announcement ON metadata_updates (announcement_id);
