// Template actors asked of keys over real gRPC (a stand-in KeysService answering CheckActors
// the way keys does: its own behaviour is proven in services/keys, the whole path in e2e
// templates.test.ts): notify names every actor as the API shows it (a user's session `sub`)
// with one ask per call, takes grantees by `sub` and stores the row id, refuses a ref that is
// no actor of the enterprise (400, nothing granted), and fails closed when keys does not
// answer, while a service reading templates for its own use (no names asked) never waits on keys.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bind,
  createGrpcClient,
  createLogger,
  type AsyncHandlers,
  type RunningGrpcServer,
  startGrpcServer,
} from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import {
  KeysServiceClient,
  KeysServiceService,
  type CheckActorsRequest,
  type KeysServiceServer,
} from '@hallmark/proto/keys/v1/keys';
import { grpcCheckActors } from '../src/templates/actors.js';
import {
  CALL,
  colleague,
  createRequest,
  expectError,
  principal,
  standInActors,
  startTemplates,
  subOf,
} from './templates-harness.js';

/** Every CheckActors keys was asked. */
const asks: CheckActorsRequest[] = [];
const keysStandIn = {
  async checkActors(req: CheckActorsRequest) {
    asks.push(req);
    const actors = await standInActors(req.principal!, req.actor_ids);
    return { known_ids: actors.map((a) => a.id), actors };
  },
} as unknown as AsyncHandlers<KeysServiceServer>; // the one method notify calls

let keys: RunningGrpcServer;
let keysClient: ReturnType<typeof createGrpcClient<KeysServiceClient>>;
let t: Awaited<ReturnType<typeof startTemplates>>;

beforeAll(async () => {
  keys = await startGrpcServer({
    name: 'keys-stand-in',
    address: '127.0.0.1:0',
    services: [bind<KeysServiceServer>(KeysServiceService, keysStandIn)],
    log: createLogger('keys-stand-in', 'silent'),
  });
  keysClient = createGrpcClient(KeysServiceClient, `127.0.0.1:${keys.port}`);
  t = await startTemplates(grpcCheckActors(keysClient.api));
});
afterAll(async () => {
  await t?.close();
  keysClient?.close();
  await keys?.shutdown(0);
});

const grant = (p: Principal, templateId: string, userIds: string[], access = ['read']) =>
  t.api.grantTemplateAccess({ principal: p, template_id: templateId, user_ids: userIds, access }, CALL);

describe('template actors from keys', () => {
  it('names the owner, version authors, grantees and grantors as the API shows them, one ask of keys per call', async () => {
    const owner = principal();
    const other = colleague(owner);
    const created = await t.api.createTemplate(createRequest(owner), CALL);
    expect(created).toMatchObject({ owner_id: owner.actor_id, owner_display: subOf(owner.actor_id) });
    await grant(owner, created.id, [other.actor_id], ['write']);
    await t.api.updateTemplate({ principal: other, template_id: created.id, name: 'Edited' } as never, CALL);
    const before = asks.length;
    const { versions } = await t.api.listTemplateVersions(
      { principal: owner, template_id: created.id },
      CALL,
    );
    expect(versions.map((v) => [v.created_by, v.created_by_display])).toEqual([
      [other.actor_id, subOf(other.actor_id)],
      [owner.actor_id, subOf(owner.actor_id)],
    ]);
    const access = await t.api.listTemplateAccess({ principal: owner, template_id: created.id }, CALL);
    expect(access).toMatchObject({
      owner_display: subOf(owner.actor_id),
      grants: [{ user_display: subOf(other.actor_id), granted_by_display: subOf(owner.actor_id) }],
    });
    const listed = await t.api.listTemplates(
      { principal: owner, type: '', format: '', name_actors: true },
      CALL,
    );
    expect(listed.templates.map((x) => x.owner_display)).toEqual([subOf(owner.actor_id)]);
    expect(asks.length - before).toBe(3);
  });

  it("grants by the user's session sub and stores the row id; a ref of another enterprise or none is 400 userIds and nothing is granted", async () => {
    const owner = principal();
    const other = colleague(owner);
    const tpl = await t.api.createTemplate(createRequest(owner), CALL);
    const granted = await grant(owner, tpl.id, [subOf(other.actor_id)]);
    expect(granted.grants).toEqual([
      expect.objectContaining({ user_id: other.actor_id, user_display: subOf(other.actor_id) }),
    ]);
    const elsewhere = principal(); // a user of another enterprise
    const err = await expectError(
      grant(owner, tpl.id, [subOf(elsewhere.actor_id), 'sub-nobody']),
      'parameter_invalid',
      'userIds',
    );
    expect(err.message).toBe(`'${subOf(elsewhere.actor_id)}' is not a user or API key of your enterprise.`);
    const after = await t.api.listTemplateAccess({ principal: owner, template_id: tpl.id }, CALL);
    expect(after.grants.map((g) => g.user_id)).toEqual([other.actor_id]);
    // Revoking names the user the same way; a stranger is 400 on user_id.
    await expectError(
      t.api.revokeTemplateAccess(
        { principal: owner, template_id: tpl.id, user_id: subOf(elsewhere.actor_id), access: [] },
        CALL,
      ),
      'parameter_invalid',
      'user_id',
    );
    const revoked = await t.api.revokeTemplateAccess(
      { principal: owner, template_id: tpl.id, user_id: subOf(other.actor_id), access: [] },
      CALL,
    );
    expect(revoked.grants).toEqual([]);
  });

  it('keys down: a grant fails service_unavailable and grants nothing; a read for a service (no names asked) still answers', async () => {
    const owner = principal();
    const other = colleague(owner);
    const tpl = await t.api.createTemplate(createRequest(owner), CALL);
    await keys.shutdown(0);
    await expectError(grant(owner, tpl.id, [other.actor_id]), 'service_unavailable');
    const { rows } = await t.pool.query(
      'SELECT count(*)::int AS n FROM template_grants WHERE template_id = $1',
      [tpl.id],
    );
    expect(rows[0].n).toBe(0);
    const listed = await t.api.listTemplates({ principal: owner, type: '', format: '' }, CALL);
    expect(listed.templates.map((x) => [x.id, x.owner_display])).toEqual([[tpl.id, '']]);
  });
});
