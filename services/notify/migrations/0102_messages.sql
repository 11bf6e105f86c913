-- The message log of email and SMS sends: the idempotency record of MessagingService.Send.
-- Recipients are stored only encrypted (kit Encryptor) plus the SHA-256 of their normal
-- form for lookup; message content is never stored.
CREATE TABLE messages (
  id                  text PRIMARY KEY,
  enterprise_id       text NOT NULL,
  livemode            boolean NOT NULL,
  idempotency_key     text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
  -- SHA-256 of the canonical request: a replay with other content is refused.
  request_hash        text NOT NULL,
  channel             text NOT NULL CHECK (channel IN ('email', 'sms')),
  recipient_encrypted text NOT NULL,
  recipient_hash      text NOT NULL,
  template_id         text,
  status              text NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
  provider            text,
  provider_message_id text,
  attempts            integer NOT NULL DEFAULT 1,
  -- Error code of the last failed attempt (never provider text).
  last_error          text,
  -- A 'sending' claim older than this is abandoned (the sender died) and may be retaken.
  lease_until         timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  sent_at             timestamptz,
  UNIQUE (enterprise_id, livemode, idempotency_key)
);
CREATE INDEX messages_recipient ON messages (enterprise_id, livemode, channel, recipient_hash);
