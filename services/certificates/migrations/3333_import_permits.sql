-- Import back from an owner's own wallet (src/ownership/, docs/resale.md): a transfer whose
-- permit was signed by the (external) holder, not by a custodial key. The sender submits this
-- signature with its deadline instead of signing one; the contract checks the signer and the
-- token's permit nonce, so the signature moves the token at most once.
ALTER TABLE certificate_transfers
  ADD COLUMN permit_signature text,
  ADD COLUMN permit_deadline  numeric(78, 0),
  ADD CONSTRAINT certificate_transfers_permit_whole
    CHECK ((permit_signature IS NULL) = (permit_deadline IS NULL));
