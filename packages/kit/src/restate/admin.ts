// Restate's admin API, for the two steps of an upgrade: register a release's endpoint as a
// new deployment (never over an existing one in production: `force` rewrites the code under
// running invocations), and later remove the deployments that were superseded and drained.
// Restate pins each invocation to the deployment it started on and sends new invocations to
// the latest deployment of each service, so a release that keeps its old endpoint up until
// its invocations end upgrades without replaying a journal against other code.

export interface RegisterOptions {
  /** Infinity: a service waiting for Restate to come up. Default 15 s. */
  timeoutMs?: number;
  /**
   * Replace the deployment already registered at `uri` (development only: a rebuilt process
   * on the same address). Production registers each release at its own URI instead.
   */
  force?: boolean;
}

/**
 * Registers a deployment, e.g. `http://bulk-restate-1-4-0:9180/1.4.0`. Registering the same
 * URI with the same services again is accepted (a restarted pod of the same release).
 * Retries only while the admin API is unreachable or answers 503 (still starting); any other
 * refusal (the endpoint does not answer, or a different handler set at a registered URI) is
 * thrown at once.
 */
export async function registerRestateDeployment(
  adminUrl: string,
  uri: string,
  opts: RegisterOptions = {},
): Promise<unknown> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    let status = 0;
    let body = '';
    try {
      const res = await fetch(new URL('/deployments', adminUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri, force: opts.force ?? false }),
        // Restate calls the endpoint for discovery before answering; that is bounded too.
        signal: AbortSignal.timeout(Math.min(10_000, Math.max(1000, deadline - Date.now()))),
      });
      status = res.status;
      body = await res.text();
      if (res.ok) return body ? (JSON.parse(body) as unknown) : {};
    } catch (err) {
      body = (err as Error).message;
    }
    const retryable = status === 0 || status === 503;
    if (!retryable || Date.now() >= deadline) {
      throw new Error(`Restate refused deployment ${uri} (${status || 'no response'}): ${body}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface RestateDeployment {
  id: string;
  uri: string;
  /** Its services and whether it is the latest deployment (the one new invocations go to). */
  services: { name: string; latest: boolean }[];
  /** Invocations pinned to it that have not completed. */
  inFlight: number;
}

async function admin<T>(adminUrl: string, path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(new URL(path, adminUrl), {
    ...init,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Restate admin ${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** Every registered deployment, with whether it is still the latest and its in-flight count. */
export async function restateDeployments(adminUrl: string): Promise<RestateDeployment[]> {
  const { deployments } = await admin<{
    deployments: { id: string; uri?: string; services: { name: string }[] }[];
  }>(adminUrl, '/deployments');
  const { services } = await admin<{ services: { name: string; deployment_id: string }[] }>(
    adminUrl,
    '/services',
  );
  const latest = new Map(services.map((s) => [s.name, s.deployment_id]));
  const { rows } = await admin<{ rows: { deployment: string; n: number }[] }>(adminUrl, '/query', {
    method: 'POST',
    body: JSON.stringify({
      query:
        "SELECT pinned_deployment_id AS deployment, count(*) AS n FROM sys_invocation WHERE status <> 'completed' AND pinned_deployment_id IS NOT NULL GROUP BY pinned_deployment_id",
    }),
  });
  const inFlight = new Map(rows.map((r) => [r.deployment, Number(r.n)]));
  return deployments.map((d) => ({
    id: d.id,
    uri: d.uri ?? '',
    services: d.services.map((s) => ({ name: s.name, latest: latest.get(s.name) === d.id })),
    inFlight: inFlight.get(d.id) ?? 0,
  }));
}

/** Superseded (no service's latest) and drained (nothing in flight): safe to remove. */
export const isDrained = (d: RestateDeployment) => d.inFlight === 0 && d.services.every((s) => !s.latest);

/**
 * Removes from Restate every deployment that is superseded and drained, and returns them:
 * the caller (the chart's drain CronJob, an operator) then stops their endpoints. Restate
 * only accepts a forced removal, so the drained check here is what makes it safe.
 */
export async function removeDrainedDeployments(adminUrl: string): Promise<RestateDeployment[]> {
  const drained = (await restateDeployments(adminUrl)).filter(isDrained);
  for (const d of drained) await admin(adminUrl, `/deployments/${d.id}?force=true`, { method: 'DELETE' });
  return drained;
}
