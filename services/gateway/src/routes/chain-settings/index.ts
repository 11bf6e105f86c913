// /api/v1/enterprise/chain-settings: how the enterprise's batches announce their tokens on chain
// (docs/marketplaces.md). `marketplaces: true` (it lists its certificates on NFT marketplaces)
// mints with one ERC-721 Transfer per token unless `transferEvents` says otherwise; neither:
// the deployment's default. Needs admin.*. Each route is one call to the certificates service,
// which owns the setting (it fixes a batch's events when MintBatch records it).
import type { ChainSettings as SettingsRecord } from '@hallmark/proto/certificates/v1/chain_settings';
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints, type Access } from '../../endpoint/define.js';
import { bool, closed, nullable, oneOf, time, Type, type Static } from '../../endpoint/schema.js';
import { principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['Enterprise'];
const ADMIN: Access = { auth: 'either', scope: 'admin.*' };
const MODES = ['per_token', 'consecutive'] as const;

const ChainSettings = Type.Object({
  marketplaces: bool,
  transferEvents: nullable(oneOf([...MODES])),
  effectiveTransferEvents: oneOf([...MODES]),
  source: oneOf(['enterprise', 'marketplaces', 'deployment']),
  updatedAt: nullable(time),
});

function presentChainSettings(s: SettingsRecord): Static<typeof ChainSettings> {
  return {
    marketplaces: s.marketplaces,
    transferEvents: (s.transfer_events || null) as (typeof MODES)[number] | null,
    effectiveTransferEvents: s.effective_transfer_events as (typeof MODES)[number],
    source: s.source as 'enterprise' | 'marketplaces' | 'deployment',
    updatedAt: s.updated_at || null,
  };
}

export const getChainSettings = defineEndpoint({
  method: 'GET',
  url: '/api/v1/enterprise/chain-settings',
  operationId: 'getChainSettings',
  tags: TAGS,
  summary: "The enterprise's chain settings and the events its next batch is minted with",
  access: ADMIN,
  responses: { 200: { description: 'The chain settings', schema: ChainSettings } },
  handler: async (request, { clients }) =>
    presentChainSettings(
      await clients.chainSettings.getChainSettings({ principal: principalOf(request) }, { idempotent: true }),
    ),
});

export const setChainSettings = defineEndpoint({
  method: 'PUT',
  url: '/api/v1/enterprise/chain-settings',
  operationId: 'setChainSettings',
  tags: TAGS,
  summary: "Set how the enterprise's batches announce their tokens (per-token Transfer or ERC-2309)",
  description:
    '`per_token`: one ERC-721 `Transfer` per token, what every marketplace indexer reads (≈ 2.2k gas ' +
    'per certificate in batches of 1,000). `consecutive`: one ERC-2309 `ConsecutiveTransfer` per batch ' +
    '(≈ 0.2k gas per certificate), which some indexers miss. `marketplaces: true` with no ' +
    '`transferEvents` mints per token. Applies to batches recorded from now on.',
  access: ADMIN,
  body: closed({
    marketplaces: Type.Boolean({ description: 'The enterprise lists its certificates on NFT marketplaces' }),
    transferEvents: Type.Optional(nullable(oneOf([...MODES]))),
  }),
  responses: { 200: { description: 'The chain settings as saved', schema: ChainSettings } },
  handler: async (request, { clients }) =>
    presentChainSettings(
      await clients.chainSettings.setChainSettings({
        principal: principalOf(request),
        marketplaces: request.body.marketplaces,
        transfer_events: request.body.transferEvents ?? '',
      }),
    ),
});

export default async function chainSettings(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [getChainSettings, setChainSettings]);
}
