// Resale use cases (docs/resale.md): an owner's gift of kind `resale` to a buyer's e-mail,
// made by GiftService (the same record, claim link, workflow and hand-over hold), and the
// brand's side: its policy and its decision. The buyer claims with ClaimGift.
import { HallmarkError, isId, notFound, type Logger } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { Scope } from '../domain/certificate.js';
import { awaitingApproval, type GiftRecord } from './domain/gift.js';
import { assertBrandDecides, notAwaiting, parseCreateResale, parseDecision } from './domain/resale.js';
import type { ResaleStore } from './resale-store.js';
import type { GiftService, GiftWorkflowIngress } from './service.js';
import type { GiftStore } from './store.js';

export interface ResaleServiceDeps {
  gifts: GiftService;
  giftStore: GiftStore;
  resales: ResaleStore;
  ingress: GiftWorkflowIngress;
  log: Logger;
}

export interface CreateResaleRequest {
  certificateId?: string;
  buyerEmail?: string;
  message?: string;
  /** The e-mail the seller's session proves. */
  sellerEmail?: string;
}

/**
 * The owner: a user session that proves an e-mail (the identity provider's verified address;
 * the gateway passes it). Anything else is refused before any look-up.
 */
function assertOwnerSession(principal: Principal | undefined, sellerEmail: string | undefined): void {
  if (principal?.actor_type !== 'user' || !isId('user', principal.actor_id) || !sellerEmail) {
    throw new HallmarkError('insufficient_permissions', {
      message: 'A resale is started by the owner, signed in with a user session that proves their e-mail.',
      extras: { required_permission: 'user_session' },
    });
  }
}

export class ResaleService {
  constructor(private readonly deps: ResaleServiceDeps) {}

  async create(scope: Scope, principal: Principal, req: CreateResaleRequest): Promise<GiftRecord> {
    assertOwnerSession(principal, req.sellerEmail);
    const input = parseCreateResale(req);
    const policy = await this.deps.resales.policy(scope);
    const { gift } = await this.deps.gifts.create(
      scope,
      principal,
      { senderEmail: req.sellerEmail },
      { kind: 'resale', input, approval: policy.approvalRequired ? 'requested' : null },
    );
    return gift;
  }

  /** A resale of the scope (a gift, or another enterprise's: not found). */
  async get(scope: Scope, id: string): Promise<GiftRecord> {
    if (!isId('gift', id)) throw notFound('resale', id);
    const g = await this.deps.giftStore.find(id);
    if (!g || g.kind !== 'resale' || g.enterpriseId !== scope.enterpriseId || g.livemode !== scope.livemode)
      throw notFound('resale', id);
    return g;
  }

  async cancel(scope: Scope, id: string): Promise<GiftRecord> {
    await this.get(scope, id);
    return this.deps.gifts.revoke(scope, id);
  }

  /**
   * The brand's decision. Approved: the buyer is e-mailed the claim link now (a failed send
   * leaves the resale `failed`, which the owner's resend repeats). Refused: the resale is
   * revoked in the same transaction and its workflow told to end.
   */
  async decide(scope: Scope, principal: Principal, id: string, approve: boolean, reason?: string) {
    assertBrandDecides(principal.actor_type);
    const parsed = parseDecision(approve, reason);
    const g = await this.get(scope, id);
    if (!awaitingApproval(g)) throw notAwaiting(g, new Date());
    const decided = await this.deps.resales.decide(scope, id, approve, parsed.reason);
    if (!decided) throw notAwaiting((await this.deps.giftStore.find(id)) ?? g, new Date());
    if (approve) {
      await this.deps.gifts.notifyRecipient(decided, 0).catch(async (err: unknown) => {
        this.deps.log.warn(
          { err, gift: id },
          'resale approved; the claim link was not sent (resend repeats it)',
        );
        await this.deps.giftStore.recordNotification(id, 'failed', null);
      });
    } else {
      await this.deps.ingress.signal(id, 'revoke').catch((err: unknown) => {
        this.deps.log.warn({ err, gift: id }, 'refusal signal not delivered; the workflow rechecks');
      });
    }
    return (await this.deps.giftStore.find(id)) ?? decided;
  }

  policy(scope: Scope) {
    return this.deps.resales.policy(scope);
  }

  setPolicy(scope: Scope, principal: Principal, approvalRequired: boolean) {
    assertBrandDecides(principal.actor_type);
    return this.deps.resales.setPolicy(scope, approvalRequired);
  }
}
