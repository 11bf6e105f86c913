// Wiring only: config, then the gateway; graceful shutdown on SIGTERM/SIGINT.
import { createLogger, guardProcess } from '@hallmark/kit';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';

guardProcess(createLogger('gateway'));
try {
  const gateway = await startGateway(loadGatewayConfig());
  const stop = () => void gateway.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (err) {
  createLogger('gateway').fatal({ err }, 'failed to start');
  process.exit(1);
}
