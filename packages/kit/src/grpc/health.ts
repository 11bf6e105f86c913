// Client for the standard gRPC health-checking protocol (grpc.health.v1), used by the
// gateway's /readyz and by the dev stack to know a service is up.
import { credentials, loadPackageDefinition, type Client } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';

let HealthCtor:
  (new (addr: string, creds: ReturnType<typeof credentials.createInsecure>) => Client) | undefined;

function healthCtor() {
  if (!HealthCtor) {
    const def = protoLoader.loadSync(protoPath, { keepCase: true, enums: String });
    const pkg = loadPackageDefinition(def) as any;
    HealthCtor = pkg.grpc.health.v1.Health;
  }
  return HealthCtor!;
}

export interface HealthProbe {
  check(timeoutMs?: number): Promise<'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'UNREACHABLE'>;
  close(): void;
}

export function createHealthProbe(address: string): HealthProbe {
  const Ctor = healthCtor();
  const client = new Ctor(address, credentials.createInsecure()) as any;
  return {
    check(timeoutMs = 1000) {
      return new Promise((resolve) => {
        client.Check(
          { service: '' },
          { deadline: Date.now() + timeoutMs },
          (err: unknown, res: { status: string }) => resolve(err ? 'UNREACHABLE' : (res.status as 'SERVING')),
        );
      });
    },
    close: () => client.close(),
  };
}
