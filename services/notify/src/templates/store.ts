// All SQL of templates, versions and grants. Every query is scoped by (enterprise_id,
// livemode); every read joins the caller's grant so access is decided on the same row
// it returns; every change locks the template row and writes its version record in the
// same transaction (versions are gap-free and ordered per template).
import {
  invalidParam,
  notFound,
  randomBase62,
  newId,
  transaction,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import { effectiveAccess, requireAccess, type AccessLevel } from './domain/access.js';
import { kindOf, type TemplateContent, type TemplateDraft } from './domain/template.js';
import type { Variable } from './domain/variables.js';

export interface Scope {
  enterpriseId: string;
  livemode: boolean;
  /** user_… or apikey_…: the owner of what it creates, the subject of grants. */
  actorId: string;
}

export interface DocumentTemplateRecord {
  id: string;
  livemode: boolean;
  draft: TemplateDraft;
  version: number;
  ownerId: string;
  createdAt: Date;
  updatedAt: Date;
  /** The calling actor's effective rights. */
  access: AccessLevel[];
}

export interface VersionRecord {
  id: string;
  templateId: string;
  version: number;
  content: TemplateContent;
  variables: Variable[];
  changelog: string;
  createdBy: string;
  createdAt: Date;
}

export interface GrantRecord {
  userId: string;
  access: AccessLevel[];
  grantedBy: string;
  grantedAt: Date;
}

export interface ListQuery {
  page: number;
  limit: number;
  type?: string;
  format?: string;
}

interface TemplateRow {
  id: string;
  livemode: boolean;
  content: TemplateContent;
  variables: Variable[];
  version: number;
  owner_id: string;
  created_at: Date;
  updated_at: Date;
  granted: string[];
}

/** Version ids: `tmplv_` + 24 base62 (the kit's id shape; not a public resource of its own). */
const newVersionId = () => `tmplv_${randomBase62(24)}`;

const SELECT = `SELECT t.id, t.livemode, t.content, t.variables, t.version, t.owner_id, t.created_at, t.updated_at,
  COALESCE((SELECT array_agg(g.access) FROM template_grants g WHERE g.template_id = t.id AND g.grantee_id = $3), '{}') AS granted
  FROM templates t`;
const SCOPED = 't.enterprise_id = $1 AND t.livemode = $2';
const READABLE = `(t.owner_id = $3 OR EXISTS (SELECT 1 FROM template_grants g WHERE g.template_id = t.id AND g.grantee_id = $3))`;

const toRecord = (r: TemplateRow, actorId: string): DocumentTemplateRecord => ({
  id: r.id,
  livemode: r.livemode,
  draft: { content: r.content, variables: r.variables },
  version: r.version,
  ownerId: r.owner_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  access: effectiveAccess(r.owner_id, actorId, r.granted),
});

export class DocumentTemplatesStore {
  constructor(readonly pool: Pool) {}

  private async load(
    db: Queryable,
    scope: Scope,
    id: string,
    lock = false,
  ): Promise<DocumentTemplateRecord | null> {
    const { rows } = await db.query<TemplateRow>(
      `${SELECT} WHERE t.id = $4 AND ${SCOPED}${lock ? ' FOR UPDATE OF t' : ''}`,
      [scope.enterpriseId, scope.livemode, scope.actorId, id],
    );
    return rows[0] ? toRecord(rows[0], scope.actorId) : null;
  }

  /** The template if the actor has `need` on it (not found without any right; 403 without `need`). */
  async getWith(scope: Scope, id: string, need: AccessLevel, db: Queryable = this.pool, lock = false) {
    const t = await this.load(db, scope, id, lock);
    if (!t) throw notFound('template', id);
    requireAccess(id, t.access, need);
    return t;
  }

  async create(scope: Scope, draft: TemplateDraft, changelog: string): Promise<DocumentTemplateRecord> {
    return transaction(this.pool, async (tx) => {
      await this.checkAttachments(tx, scope, draft);
      const id = newId('template');
      const c = draft.content;
      await tx.query(
        `INSERT INTO templates (id, enterprise_id, livemode, kind, type, format, name, content, variables, owner_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          id,
          scope.enterpriseId,
          scope.livemode,
          kindOf(c.type),
          c.type,
          c.format,
          c.name,
          c,
          JSON.stringify(draft.variables),
          scope.actorId,
        ],
      );
      await this.writeVersion(tx, id, 1, draft, changelog, scope.actorId);
      return (await this.load(tx, scope, id))!;
    });
  }

  async list(scope: Scope, q: ListQuery): Promise<{ templates: DocumentTemplateRecord[]; total: number }> {
    const params: unknown[] = [scope.enterpriseId, scope.livemode, scope.actorId];
    let where = `${SCOPED} AND ${READABLE}`;
    if (q.type) where += ` AND t.type = $${params.push(q.type)}`;
    if (q.format) where += ` AND t.format = $${params.push(q.format)}`;
    const client = await this.pool.connect();
    try {
      // One snapshot for the page and its total.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<TemplateRow>(
        `${SELECT} WHERE ${where} ORDER BY t.created_at DESC, t.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, q.limit, (q.page - 1) * q.limit],
      );
      const total = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM templates t WHERE ${where}`,
        params,
      );
      await client.query('COMMIT');
      return {
        templates: rows.map((r) => toRecord(r, scope.actorId)),
        total: total.rows[0]!.n,
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Read-modify-write under the row lock. `change` returns the next draft and changelog,
   * or null when nothing changed (no version is written then).
   */
  async update(
    scope: Scope,
    id: string,
    change: (current: DocumentTemplateRecord) => { next: TemplateDraft; changelog: string } | null,
  ): Promise<DocumentTemplateRecord> {
    return transaction(this.pool, async (tx) => {
      const current = await this.getWith(scope, id, 'write', tx, true);
      const result = change(current);
      if (!result) return current;
      return this.writeNext(tx, scope, current, result.next, result.changelog);
    });
  }

  /** Makes an earlier version's content current as a new version (history is never rewritten). */
  async restore(
    scope: Scope,
    id: string,
    version: number,
    changelog: string | undefined,
  ): Promise<DocumentTemplateRecord> {
    return transaction(this.pool, async (tx) => {
      const current = await this.getWith(scope, id, 'write', tx, true);
      const { rows } = await tx.query<{ content: TemplateContent; variables: Variable[] }>(
        'SELECT content, variables FROM template_versions WHERE template_id = $1 AND version = $2',
        [id, version],
      );
      if (!rows[0]) throw notFound('template version', `${id}@${version}`);
      const next = { content: rows[0].content, variables: rows[0].variables };
      return this.writeNext(tx, scope, current, next, changelog ?? `Restored version ${version}`);
    });
  }

  private async writeNext(
    tx: Queryable,
    scope: Scope,
    current: DocumentTemplateRecord,
    next: TemplateDraft,
    changelog: string,
  ): Promise<DocumentTemplateRecord> {
    await this.checkAttachments(tx, scope, next);
    const c = next.content;
    const version = current.version + 1;
    await tx.query(
      `UPDATE templates SET type = $2, format = $3, name = $4, content = $5, variables = $6, version = $7, updated_at = now()
       WHERE id = $1`,
      [current.id, c.type, c.format, c.name, c, JSON.stringify(next.variables), version],
    );
    await this.writeVersion(tx, current.id, version, next, changelog, scope.actorId);
    return (await this.load(tx, scope, current.id))!;
  }

  async delete(scope: Scope, id: string): Promise<void> {
    await transaction(this.pool, async (tx) => {
      await this.getWith(scope, id, 'delete', tx, true);
      await tx.query('DELETE FROM templates WHERE id = $1', [id]);
    });
  }

  async listVersions(scope: Scope, id: string): Promise<VersionRecord[]> {
    await this.getWith(scope, id, 'read');
    return this.versions(this.pool, id);
  }

  /** Newest first. */
  private async versions(db: Queryable, id: string): Promise<VersionRecord[]> {
    const { rows } = await db.query<{
      id: string;
      template_id: string;
      version: number;
      content: TemplateContent;
      variables: Variable[];
      changelog: string;
      created_by: string;
      created_at: Date;
    }>('SELECT * FROM template_versions WHERE template_id = $1 ORDER BY version DESC', [id]);
    return rows.map((r) => ({
      id: r.id,
      templateId: r.template_id,
      version: r.version,
      content: r.content,
      variables: r.variables,
      changelog: r.changelog,
      createdBy: r.created_by,
      createdAt: r.created_at,
    }));
  }

  private async writeVersion(
    tx: Queryable,
    id: string,
    version: number,
    d: TemplateDraft,
    changelog: string,
    actorId: string,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO template_versions (id, template_id, version, content, variables, changelog, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [newVersionId(), id, version, d.content, JSON.stringify(d.variables), changelog, actorId],
    );
  }

  /** Attachments name document templates of the same scope that the actor can read. */
  private async checkAttachments(tx: Queryable, scope: Scope, d: TemplateDraft): Promise<void> {
    for (const [i, a] of (d.content.attachments ?? []).entries()) {
      const t = await this.load(tx, scope, a.templateId);
      if (!t || t.access.length === 0)
        throw invalidParam(`attachments[${i}].templateId`, `No such template: '${a.templateId}'.`);
      if (kindOf(t.draft.content.type) !== 'document')
        throw invalidParam(`attachments[${i}].templateId`, `'${a.templateId}' is not a document template.`);
    }
  }

  // ── access grants ────────────────────────────────────────────────────────────────

  async listAccess(scope: Scope, id: string): Promise<{ ownerId: string; grants: GrantRecord[] }> {
    const t = await this.getWith(scope, id, 'read');
    return { ownerId: t.ownerId, grants: await this.grants(this.pool, id) };
  }

  async grant(scope: Scope, id: string, userIds: string[], levels: AccessLevel[]) {
    return transaction(this.pool, async (tx) => {
      const t = await this.ownedTemplate(tx, scope, id);
      if (userIds.includes(t.ownerId))
        throw invalidParam('userIds', 'The owner already has every right on the template.');
      await tx.query(
        `INSERT INTO template_grants (template_id, grantee_id, access, granted_by)
         SELECT $1, u, l, $4 FROM unnest($2::text[]) u CROSS JOIN unnest($3::text[]) l
         ON CONFLICT DO NOTHING`,
        // Any grant includes read, stored explicitly so revoking write or delete keeps it.
        [id, userIds, [...new Set<AccessLevel>(['read', ...levels])], scope.actorId],
      );
      return { ownerId: t.ownerId, grants: await this.grants(tx, id) };
    });
  }

  async revoke(scope: Scope, id: string, userId: string, levels: AccessLevel[]) {
    return transaction(this.pool, async (tx) => {
      const t = await this.ownedTemplate(tx, scope, id);
      // Read goes with any grant, so revoking read revokes the grant as a whole.
      const all = levels.length === 0 || levels.includes('read');
      await tx.query(
        `DELETE FROM template_grants WHERE template_id = $1 AND grantee_id = $2 ${all ? '' : 'AND access = ANY($3)'}`,
        all ? [id, userId] : [id, userId, levels],
      );
      return { ownerId: t.ownerId, grants: await this.grants(tx, id) };
    });
  }

  private async ownedTemplate(tx: Queryable, scope: Scope, id: string): Promise<DocumentTemplateRecord> {
    const t = await this.load(tx, scope, id, true);
    if (!t) throw notFound('template', id);
    requireAccess(id, t.access, 'owner', t.ownerId === scope.actorId);
    return t;
  }

  private async grants(db: Queryable, id: string): Promise<GrantRecord[]> {
    const { rows } = await db.query<{
      grantee_id: string;
      access: string[];
      granted_by: string;
      granted_at: Date;
    }>(
      `SELECT grantee_id, array_agg(access ORDER BY access) AS access,
              (array_agg(granted_by ORDER BY granted_at DESC))[1] AS granted_by, max(granted_at) AS granted_at
       FROM template_grants WHERE template_id = $1 GROUP BY grantee_id ORDER BY min(granted_at), grantee_id`,
      [id],
    );
    return rows.map((r) => ({
      userId: r.grantee_id,
      access: effectiveAccess('', r.grantee_id, r.access),
      grantedBy: r.granted_by,
      grantedAt: r.granted_at,
    }));
  }
}
