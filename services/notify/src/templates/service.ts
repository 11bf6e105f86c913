// The use cases of document templates (documents, emails, workflows — not the certificates
// service's warranty template): create, list, read, update with a version per change,
// restore, delete, access grants, and rendering. Input rules are domain/'s; the store holds
// the transactions and the access checks on the rows it reads.
import { invalidParam, isId, missingParam, notFound } from '@hallmark/kit';
import { GRANTEE, parseLevels } from './domain/access.js';
import { applyPatch, buildTemplate, type TemplateInput } from './domain/template.js';
import { parseLocale } from './domain/variables.js';
import { renderTemplate, type Rendered } from './render/index.js';
import type {
  DocumentTemplateRecord,
  DocumentTemplatesStore,
  GrantRecord,
  Scope,
  VersionRecord,
} from './store.js';

/** Ids are checked for shape before any lookup; a malformed id is simply not found. */
export function templateId(id: string): string {
  if (!isId('template', id)) throw notFound('template', id);
  return id;
}

const changelogOf = (s: string | undefined, fallback: string): string => {
  if (s === undefined || s.trim() === '') return fallback;
  if (s.length > 1000) throw invalidParam('changelog', 'changelog is longer than 1000 characters.');
  return s;
};

export interface TemplateAccess {
  ownerId: string;
  grants: GrantRecord[];
}

export class DocumentTemplatesService {
  constructor(private readonly store: DocumentTemplatesStore) {}

  create(scope: Scope, input: TemplateInput, changelog: string | undefined): Promise<DocumentTemplateRecord> {
    const draft = buildTemplate(input);
    return this.store.create(scope, draft, changelogOf(changelog, 'Created'));
  }

  async list(
    scope: Scope,
    q: { page?: number; limit?: number; type?: string; format?: string },
  ): Promise<{ templates: DocumentTemplateRecord[]; total: number; page: number; limit: number }> {
    const page = q.page || 1;
    const limit = q.limit || 20;
    if (page < 1) throw invalidParam('page', 'page starts at 1.');
    if (limit < 1 || limit > 100) throw invalidParam('limit', 'limit is 1 to 100.');
    const found = await this.store.list(scope, {
      page,
      limit,
      type: q.type || undefined,
      format: q.format || undefined,
    });
    return { ...found, page, limit };
  }

  get(scope: Scope, id: string): Promise<DocumentTemplateRecord> {
    return this.store.getWith(scope, templateId(id), 'read');
  }

  /** A new version when something changed; the same template (and no version) otherwise. */
  update(
    scope: Scope,
    id: string,
    patch: TemplateInput,
    changelog: string | undefined,
  ): Promise<DocumentTemplateRecord> {
    return this.store.update(scope, templateId(id), (current) => {
      const { next, changed } = applyPatch(current.draft, patch);
      if (changed.length === 0) return null;
      return { next, changelog: changelogOf(changelog, `Updated ${changed.join(', ')}`) };
    });
  }

  delete(scope: Scope, id: string): Promise<void> {
    return this.store.delete(scope, templateId(id));
  }

  listVersions(scope: Scope, id: string): Promise<VersionRecord[]> {
    return this.store.listVersions(scope, templateId(id));
  }

  restore(
    scope: Scope,
    id: string,
    version: number,
    changelog: string | undefined,
  ): Promise<DocumentTemplateRecord> {
    if (!Number.isInteger(version) || version < 1)
      throw invalidParam('version', 'version is a positive integer.');
    return this.store.restore(scope, templateId(id), version, changelog || undefined);
  }

  listAccess(scope: Scope, id: string): Promise<TemplateAccess> {
    return this.store.listAccess(scope, templateId(id));
  }

  grant(scope: Scope, rawId: string, userIds: string[], access: string[]): Promise<TemplateAccess> {
    const id = templateId(rawId);
    if (userIds.length === 0) throw missingParam('userIds');
    if (userIds.length > 100) throw invalidParam('userIds', 'At most 100 users per call.');
    for (const u of userIds)
      if (!GRANTEE.test(u)) throw invalidParam('userIds', `Invalid user id '${u}': a user_… or apikey_… id.`);
    const levels = parseLevels(access, 'permissions', false);
    return this.store.grant(scope, id, [...new Set(userIds)], levels);
  }

  revoke(scope: Scope, rawId: string, userId: string, access: string[]): Promise<TemplateAccess> {
    const id = templateId(rawId);
    if (!GRANTEE.test(userId)) throw invalidParam('user_id', 'A user_… or apikey_… id.');
    const levels = parseLevels(access, 'permissions', true);
    return this.store.revoke(scope, id, userId, levels);
  }

  async render(
    scope: Scope,
    id: string,
    variables: Parameters<typeof renderTemplate>[1],
    rawLocale: string | undefined,
  ): Promise<Rendered> {
    const locale = parseLocale(rawLocale);
    const t = await this.store.getWith(scope, templateId(id), 'read');
    return renderTemplate(t.draft, variables, locale);
  }
}
