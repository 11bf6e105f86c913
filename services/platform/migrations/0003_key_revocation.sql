-- app/uninstalled revokes the key Hallmark provisioned; true until keys accepted the
-- revocation, so a failed one is retried by the submitter.
ALTER TABLE integrations ADD COLUMN key_revoke_pending boolean NOT NULL DEFAULT false;
