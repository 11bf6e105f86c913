-- Hand-over exclusivity (docs/security.md › Hand-over exclusivity): a certificate has at most
-- one pending hand-over at a time, a certificate voucher, a gift or a transfer. The hold is a
-- column of the certificate row, so there is only ever one: it is taken by a conditional
-- UPDATE (free, lapsed, or already this hand-over's) in the transaction that creates the
-- voucher, gift or transfer, and given up when that hand-over ends (src/handover-store.ts).
--   handover_until: when the hold lapses by itself (an unclaimed voucher's or a pending gift's
--   expiry, which no sweep reports); null while a claim or transfer is under way.
ALTER TABLE certificates
  ADD COLUMN handover_kind  text CHECK (handover_kind IN ('voucher', 'gift', 'transfer')),
  ADD COLUMN handover_id    text,
  ADD COLUMN handover_until timestamptz,
  ADD CONSTRAINT certificates_handover_whole CHECK ((handover_kind IS NULL) = (handover_id IS NULL));

-- Existing data may hold two pending hand-overs of one certificate (the finding this fixes).
-- Each certificate's hold goes to the hand-over already under way (a claim or transfer in
-- flight), else to the oldest: the one that would have won had the rule existed. DISTINCT ON
-- picks exactly one per certificate, so this cannot fail on such rows.
CREATE TEMPORARY TABLE handover_candidates ON COMMIT DROP AS
  SELECT v.certificate_id, 'voucher' AS kind, v.id AS ref,
         CASE WHEN v.claimed_at IS NULL THEN v.expires_at END AS until,
         v.claimed_at IS NOT NULL AS in_flight, v.created_at
    FROM certificate_vouchers v
    LEFT JOIN certificate_transfers t ON t.enterprise_id = v.enterprise_id AND t.livemode = v.livemode
                                     AND t.transfer_key = v.claim_transfer_key
   WHERE v.voided_at IS NULL
     AND ((v.claimed_at IS NULL AND v.expires_at > now())
          OR (v.claimed_at IS NOT NULL AND t.status IS DISTINCT FROM 'confirmed'))
  UNION ALL
  SELECT g.certificate_id, 'gift', g.id, CASE WHEN g.status = 'pending' THEN g.expires_at END,
         g.status = 'claiming', g.created_at
    FROM gifts g
   WHERE g.status = 'claiming' OR (g.status = 'pending' AND g.expires_at > now())
  UNION ALL
  -- Transfers of claims (voucher `claim:…`, gift `gift:…`) are their voucher's or gift's.
  SELECT t.certificate_id, 'transfer', t.id::text, NULL, true, t.created_at
    FROM certificate_transfers t
   WHERE t.status IN ('pending', 'signed', 'sent')
     AND t.transfer_key NOT LIKE 'claim:%' AND t.transfer_key NOT LIKE 'gift:%';

CREATE TEMPORARY TABLE handover_winners ON COMMIT DROP AS
  SELECT DISTINCT ON (certificate_id) certificate_id, kind, ref, until
    FROM handover_candidates
   ORDER BY certificate_id, in_flight DESC, created_at, ref;

UPDATE certificates c SET handover_kind = w.kind, handover_id = w.ref, handover_until = w.until
  FROM handover_winners w WHERE c.id = w.certificate_id;

-- The others that have not started moving are closed, so none of them can take the
-- certificate later and every page tells the truth: an unclaimed voucher is voided, a pending
-- gift revoked (its workflow sees that at its next recheck and ends), each with the reason.
UPDATE certificate_vouchers v
   SET voided_at = now(), updated_at = now(),
       void_reason = 'Superseded: its certificate was already in another pending hand-over.'
  FROM handover_candidates x
 WHERE x.kind = 'voucher' AND x.ref = v.id AND NOT x.in_flight
   AND NOT EXISTS (SELECT 1 FROM handover_winners w WHERE w.kind = 'voucher' AND w.ref = v.id);
UPDATE gifts g SET status = 'revoked', revoked_at = now(), updated_at = now()
  FROM handover_candidates x
 WHERE x.kind = 'gift' AND x.ref = g.id AND NOT x.in_flight
   AND NOT EXISTS (SELECT 1 FROM handover_winners w WHERE w.kind = 'gift' AND w.ref = g.id);
