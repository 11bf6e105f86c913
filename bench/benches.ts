// The benches `pnpm bench` knows, by name, each loaded on demand (a bench reads its sizes when
// its module loads, after run.ts has set the mode). The smoke test covers every name here.
export const BENCHES: Record<string, () => Promise<void>> = {
  gateway: async () => (await import('./gateway.js')).benchGateway(),
  'contract-gas': async () => (await import('./contract-gas.js')).benchContractGas(),
  vouchers: async () => (await import('./vouchers.js')).benchVouchers(),
  notify: async () => (await import('./notify.js')).benchNotify(),
  'public-read': async () => (await import('./public-read.js')).benchPublicRead(),
  bulk: async () => (await import('./bulk.js')).benchBulk(),
  scale: async () => (await import('./scale.js')).benchScale(),
};
