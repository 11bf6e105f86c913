// The use cases of document templates (documents, emails, workflows — not the certificates
// service's warranty template): create, list, read, update with a version per change,
// restore, delete, access grants, and rendering. Input rules are domain/'s; the store holds
// the transactions and the access checks on the rows it reads; actors (grantees, and the
// names the API shows) are the keys service's (actors.ts).
import { invalidParam, isId, missingParam, notFound } from '@hallmark/kit';
import { parsePage } from '@hallmark/kit/page';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { CheckActors } from './actors.js';
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

/** Row id → the id the API shows (an id keys does not know: as it is). */
export type Namer = (id: string) => string;

export class DocumentTemplatesService {
  constructor(
    private readonly store: DocumentTemplatesStore,
    private readonly checkActors: CheckActors,
  ) {}

  /** How the API names each of `ids` (row ids): one ask of keys, none for no ids. */
  async namer(principal: Principal, ids: readonly string[]): Promise<Namer> {
    const unique = [...new Set(ids.filter(Boolean))];
    if (unique.length === 0) return (id) => id;
    const byId = new Map((await this.checkActors(principal, unique)).map((a) => [a.id, a.display]));
    return (id) => byId.get(id) ?? id;
  }

  /**
   * The row ids of `refs` (in order). A ref that is no actor of the principal's enterprise is a
   * 400 on `param`, worded alike whether it exists elsewhere or not at all.
   */
  private async grantees(principal: Principal, refs: readonly string[], param: string): Promise<string[]> {
    const byRef = new Map((await this.checkActors(principal, refs)).map((a) => [a.ref, a.id]));
    const stranger = refs.find((ref) => !byRef.has(ref));
    if (stranger !== undefined)
      throw invalidParam(param, `'${stranger}' is not a user or API key of your enterprise.`);
    return refs.map((ref) => byRef.get(ref)!);
  }

  create(scope: Scope, input: TemplateInput, changelog: string | undefined): Promise<DocumentTemplateRecord> {
    const draft = buildTemplate(input);
    return this.store.create(scope, draft, changelogOf(changelog, 'Created'));
  }

  async list(
    scope: Scope,
    q: { page?: number; limit?: number; type?: string; format?: string },
  ): Promise<{ templates: DocumentTemplateRecord[]; total: number; page: number; limit: number }> {
    const { page, limit } = parsePage(q);
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

  /** `refs` name the grantees as keys knows them (a session `sub`, a row id, a key id). */
  async grant(
    scope: Scope,
    principal: Principal,
    rawId: string,
    refs: string[],
    access: string[],
  ): Promise<TemplateAccess> {
    if (refs.length === 0) throw missingParam('userIds');
    if (refs.length > 100) throw invalidParam('userIds', 'At most 100 users per call.');
    // The grantees first, as before any other check: a stranger is a 400 whatever the template.
    const userIds = await this.grantees(principal, refs, 'userIds');
    const id = templateId(rawId);
    for (const u of userIds)
      if (!GRANTEE.test(u)) throw invalidParam('userIds', `Invalid user id '${u}': a user_… or apikey_… id.`);
    const levels = parseLevels(access, 'permissions', false);
    return this.store.grant(scope, id, [...new Set(userIds)], levels);
  }

  async revoke(
    scope: Scope,
    principal: Principal,
    rawId: string,
    ref: string,
    access: string[],
  ): Promise<TemplateAccess> {
    const userId = (await this.grantees(principal, [ref], 'user_id'))[0]!;
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
