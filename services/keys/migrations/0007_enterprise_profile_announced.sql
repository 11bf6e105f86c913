-- Announces every profile saved before `enterprise_profile.updated` existed, once: the event
-- of each, as `recordEvent` would write it (kit outbox envelope; payload checked by the test
-- keys/test/profile-events.test.ts), so the certificates service's read model of issuers
-- starts with them. The id is derived from the enterprise (hex is base62), so the event is
-- the same whichever replica applies this; a later save announces itself and is newer (as_of).
INSERT INTO outbox (id, subject, type, payload)
SELECT 'evt_' || substr(md5('enterprise_profile.backfill:' || p.enterprise_id), 1, 24),
       'hallmark.keys.enterprise_profile.updated',
       'enterprise_profile.updated',
       jsonb_build_object(
         'id', 'evt_' || substr(md5('enterprise_profile.backfill:' || p.enterprise_id), 1, 24),
         'type', 'enterprise_profile.updated',
         'source', 'keys',
         'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'enterprise_id', p.enterprise_id,
         'livemode', true,
         'request_id', NULL,
         'data', jsonb_build_object('object', jsonb_build_object(
           'enterprise_id', p.enterprise_id,
           'display_name', p.display_name,
           'website', p.website,
           'domain_verified', p.domain_verified,
           'logo_sha256', p.logo_sha256,
           'logo_width', p.logo_width,
           'logo_height', p.logo_height,
           'indexable', p.indexable,
           'as_of', to_char(GREATEST(p.updated_at, p.domain_checked_at) AT TIME ZONE 'UTC',
                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))
FROM enterprise_profiles p
ON CONFLICT (id) DO NOTHING;
