-- The chain indexer's state (issue 31, "the long tail"): the chain facts a verification reads
-- (a batch's BatchMinted record and mint events, each token's owner and burn), kept fresh by the
-- contract's logs, so a public verification needs no RPC call. Both tables are keyed by the
-- contract, so a redeployment starts a fresh index. Rows are written only by the indexer
-- (src/indexer/), in the transaction that advances its checkpoint (chain_state key
-- 'chain-indexer:<chainId>:<contract>').

-- One row per BatchMinted event: the batch's range, root and holder, where it was minted, and
-- whether mint events of the same transaction (one ERC-2309 ConsecutiveTransfer, or a Transfer
-- from zero per token) cover the whole range to that holder.
CREATE TABLE chain_batches (
  contract         text NOT NULL,
  first_token_id   numeric(78, 0) NOT NULL,
  quantity         bigint NOT NULL CHECK (quantity > 0),
  batch_key        text NOT NULL,
  merkle_root      text NOT NULL,
  holder           text NOT NULL,
  transaction_hash text NOT NULL,
  block_number     bigint NOT NULL,
  mint_events      text NOT NULL CHECK (mint_events IN ('erc2309', 'per-token', 'missing')),
  PRIMARY KEY (contract, first_token_id)
);

-- Tokens whose owner changed after their batch's mint: the latest owner the logs show (the zero
-- address once burned) and the change that set it. A token with no row is held by its batch's
-- holder.
CREATE TABLE chain_tokens (
  contract         text NOT NULL,
  token_id         numeric(78, 0) NOT NULL,
  owner            text NOT NULL,
  burned           boolean NOT NULL DEFAULT false,
  transaction_hash text NOT NULL,
  block_number     bigint NOT NULL,
  log_index        integer NOT NULL,
  PRIMARY KEY (contract, token_id)
);

-- What the background re-check found when it read the chain itself and the index said
-- otherwise (owner, burned, batch root, mint). Open until a later re-check of the same token
-- agrees again; operators see the open ones in the metric hallmark_chain_index_disagreements
-- (alerted on) and here.
CREATE TABLE chain_index_disagreements (
  id               bigserial PRIMARY KEY,
  contract         text NOT NULL,
  token_id         numeric(78, 0) NOT NULL,
  certificate_id   text NOT NULL,
  fact             text NOT NULL CHECK (fact IN ('owner', 'burned', 'batch')),
  indexed          text NOT NULL,
  chain            text NOT NULL,
  detected_at      timestamptz NOT NULL DEFAULT now(),
  resolved_at      timestamptz
);
CREATE UNIQUE INDEX chain_index_disagreements_open
  ON chain_index_disagreements (contract, token_id, fact) WHERE resolved_at IS NULL;
