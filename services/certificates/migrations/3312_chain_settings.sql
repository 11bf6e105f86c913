-- Per-enterprise chain settings (src/chain-settings/): how its batches announce their tokens.
-- `marketplaces`: the enterprise lists its certificates on NFT marketplaces, so its batches
-- default to one ERC-721 Transfer per token (what every indexer reads); `transfer_events`: an
-- explicit choice that overrides it. Neither set: the deployment's HALLMARK_CHAIN_TRANSFER_EVENTS.
CREATE TABLE enterprise_chain_settings (
  enterprise_id    text PRIMARY KEY,
  marketplaces     boolean NOT NULL DEFAULT false,
  transfer_events  text CHECK (transfer_events IN ('per_token', 'consecutive')),
  updated_by       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- The events a batch is minted with, fixed when MintBatch records it (the enterprise's setting
-- then): 'erc2309' or 'per-token'; NULL: the deployment default when the relayer signs.
ALTER TABLE certificate_batches
  ADD COLUMN transfer_events text CHECK (transfer_events IN ('erc2309', 'per-token'));
