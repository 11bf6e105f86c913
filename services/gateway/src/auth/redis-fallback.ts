// When the shared rate-limit store (Redis) fails, limits go on counting in this process:
// slower to agree across replicas (each replica counts its own share), never a 5xx. The
// switch is logged once each way, counted (hallmark_rate_limit_fallback_total), and shown to
// operators as hallmark_dependency_up{dependency="redis"} and on /readyz's detail.
import { counter, gauge } from '@hallmark/kit';
import type { FastifyBaseLogger } from 'fastify';

export class RedisFallback {
  private down = false;
  private readonly fallbacks = counter(
    'hallmark_rate_limit_fallback_total',
    'Rate-limit decisions made in this process because Redis failed',
  );
  private readonly up = gauge('hallmark_dependency_up', 'Whether a dependency answers (1) or not (0)', [
    'dependency',
  ]);

  constructor(private readonly log: FastifyBaseLogger) {
    this.up.set({ dependency: 'redis' }, 1);
  }

  /** True while Redis is failing (the last call to it failed). */
  get degraded(): boolean {
    return this.down;
  }

  /** A call to Redis failed: this decision is made locally. */
  failed(err: unknown): void {
    this.fallbacks.inc();
    if (this.down) return;
    this.down = true;
    this.up.set({ dependency: 'redis' }, 0);
    this.log.warn({ err }, 'degraded: Redis failed; rate limits counted in this process until it answers');
  }

  /** A call to Redis answered. */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.up.set({ dependency: 'redis' }, 1);
    this.log.info('Redis answers again: rate limits shared by every gateway again');
  }
}
