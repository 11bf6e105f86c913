-- Templates (document, email, workflow), their version history and access grants.
-- `content` holds every content field of the current version (name, type, format,
-- styling and the kind's own fields); name/type/format are repeated as columns for
-- filtering. Every change bumps `version` and writes a template_versions row in the
-- same transaction.
CREATE TABLE templates (
  id            text PRIMARY KEY,
  enterprise_id text NOT NULL,
  livemode      boolean NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('document', 'email', 'workflow')),
  type          text NOT NULL CHECK (type IN ('invoice', 'receipt', 'report', 'contract', 'document', 'email', 'workflow')),
  format        text CHECK (format IN ('pdf', 'html', 'docx')),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  content       jsonb NOT NULL,
  variables     jsonb NOT NULL DEFAULT '[]',
  version       integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  -- Actor who created it (user_… or apikey_…): has every right.
  owner_id      text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'workflow') = (format IS NULL))
);
CREATE INDEX templates_list ON templates (enterprise_id, livemode, created_at DESC, id DESC);

CREATE TABLE template_versions (
  id          text PRIMARY KEY,
  template_id text NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
  version     integer NOT NULL CHECK (version >= 1),
  -- templates.content at this version.
  content     jsonb NOT NULL,
  variables   jsonb NOT NULL,
  changelog   text NOT NULL,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (template_id, version)
);

-- One row per (template, grantee, level).
CREATE TABLE template_grants (
  template_id text NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
  grantee_id  text NOT NULL,
  access      text NOT NULL CHECK (access IN ('read', 'write', 'delete')),
  granted_by  text NOT NULL,
  granted_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (template_id, grantee_id, access)
);
CREATE INDEX template_grants_grantee ON template_grants (grantee_id, template_id);
