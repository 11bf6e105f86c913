-- What became of a gift's notification (its claim link by e-mail, and SMS when a phone was
-- given): `pending` until the first send answers, `sent`, `failing` while it is retried
-- (with the last error, which names no recipient), `failed` once the workflow stopped
-- retrying (the sender can resend). Gifts made before this column were sent.
ALTER TABLE gifts ADD COLUMN notification text NOT NULL DEFAULT 'sent';
ALTER TABLE gifts ALTER COLUMN notification SET DEFAULT 'pending';
ALTER TABLE gifts ADD COLUMN notification_error text;
