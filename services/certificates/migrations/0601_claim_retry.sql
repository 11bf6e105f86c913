-- A certificate-voucher claim is never left half-done (docs/security.md): a claim whose chain
-- transfer failed is sent again under a new transfer key (claim:<voucher id>:<attempt>), and
-- after HALLMARK_CLAIM_MAX_ATTEMPTS, or once the issuer no longer holds the token, the claim
-- is undone (voucher claimable again) with a `claim_reverted` provenance entry.
-- claim_attempts: transfers tried for the current claim; claim_seq: transfers ever keyed for
-- this voucher (so a key is never reused, even by a later claim after an undo).
ALTER TABLE certificate_vouchers
  ADD COLUMN claim_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN claim_seq      integer NOT NULL DEFAULT 0;
UPDATE certificate_vouchers SET claim_attempts = 1, claim_seq = 1 WHERE claimed_at IS NOT NULL;

ALTER TABLE provenance DROP CONSTRAINT IF EXISTS provenance_kind_check;
ALTER TABLE provenance ADD CONSTRAINT provenance_kind_check
  CHECK (kind IN ('minted', 'transferred', 'gifted', 'claimed', 'claim_reverted', 'burned', 'warranty_set',
                  'warranty_changed'));
