// Hallmark's own rules for a rendered release: the security posture of every pod, the probes,
// the per-pod HALLMARK_<SVC>_ADDR wiring, and that every reference (Service → pods, env →
// ConfigMap/Secret, HPA/PDB/Ingress → their targets) resolves inside the release.

export const SERVICES = ['gateway', 'keys', 'vouchers', 'certificates', 'bulk', 'notify', 'platform'];
const BACKENDS = SERVICES.slice(1);
const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

// A YAML number passed through toString in a template: 1048576 → "1.048576e+06".
const FLOATY = /^-?\d(\.\d+)?e[+-]?\d+$/i;

const selects = (selector, labels) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v) &&
  Object.keys(selector ?? {}).length > 0;

function podProblems(pod, ctx, say) {
  const spec = pod.spec ?? {};
  if (spec.securityContext?.runAsNonRoot !== true) say('pod securityContext.runAsNonRoot must be true');
  if (spec.securityContext?.seccompProfile?.type !== 'RuntimeDefault')
    say('pod seccompProfile must be RuntimeDefault');
  if (spec.securityContext?.runAsUser === 0) say('pod must not run as uid 0');
  if (spec.automountServiceAccountToken !== false) say('automountServiceAccountToken must be false');
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) say('host namespaces are not allowed');
  const sa = spec.serviceAccountName ?? 'default';
  if (sa !== 'default' && !ctx.byKind('ServiceAccount').some((s) => s.metadata.name === sa)) {
    say(`serviceAccountName ${sa} is not rendered`);
  }
  const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    const sc = c.securityContext ?? {};
    const at = (msg) => say(`container ${c.name}: ${msg}`);
    if (sc.allowPrivilegeEscalation !== false) at('allowPrivilegeEscalation must be false');
    if (sc.readOnlyRootFilesystem !== true) at('readOnlyRootFilesystem must be true');
    if (sc.privileged === true) at('privileged is not allowed');
    if (sc.runAsNonRoot === false || sc.runAsUser === 0) at('must not run as root');
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) at('capabilities.drop must include ALL');
    if ((sc.capabilities?.add ?? []).length) at('capabilities.add is not allowed');
    for (const side of ['requests', 'limits']) {
      for (const r of ['cpu', 'memory'])
        if (c.resources?.[side]?.[r] === undefined) at(`resources.${side}.${r} missing`);
    }
    if (!c.image || /:latest$/.test(c.image)) at(`image must be set and pinned (got ${c.image})`);
    for (const m of c.volumeMounts ?? []) if (!volumes.has(m.name)) at(`volumeMount ${m.name} has no volume`);
    const tmp = (c.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
    if (!tmp || !volumes.get(tmp.name)?.emptyDir)
      at('needs an emptyDir mounted at /tmp (root filesystem is read-only)');
    for (const p of c.ports ?? [])
      if (p.name && !/^[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$/.test(p.name)) at(`bad port name ${p.name}`);
    const seen = new Set();
    for (const e of c.env ?? []) {
      if (FLOATY.test(e.value ?? '')) at(`env ${e.name}=${e.value}: a number printed as a float`);
      if (seen.has(e.name)) at(`env ${e.name} set twice`);
      seen.add(e.name);
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && !ctx.secretExists(ref.name))
        at(`env ${e.name}: Secret ${ref.name} is neither rendered nor external`);
      if (
        ref &&
        ctx.rendered('Secret', ref.name) &&
        ref.optional === false &&
        !ctx.secretHasKey(ref.name, ref.key)
      ) {
        at(`env ${e.name}: rendered Secret ${ref.name} lacks required key ${ref.key}`);
      }
    }
    for (const f of c.envFrom ?? []) {
      if (f.configMapRef && !ctx.rendered('ConfigMap', f.configMapRef.name))
        at(`envFrom ConfigMap ${f.configMapRef.name} not rendered`);
      if (f.secretRef && !ctx.secretExists(f.secretRef.name))
        at(`envFrom Secret ${f.secretRef.name} not found`);
    }
  }
}

function probeProblems(dep, c, say) {
  const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = c[kind];
    if (!probe) {
      say(`${kind} missing`);
      continue;
    }
    if (ports.has('grpc')) {
      if (probe.grpc?.port !== ports.get('grpc'))
        say(`${kind} must be a gRPC probe on port ${ports.get('grpc')}`);
      // Liveness must not follow the database: an outage would restart every pod.
      const want = kind === 'readinessProbe' ? undefined : 'liveness';
      if ((probe.grpc?.service || undefined) !== want)
        say(`${kind} must ask the ${want ? '"liveness"' : 'overall ("")'} gRPC health entry`);
    } else {
      const path = { livenessProbe: '/healthz', readinessProbe: '/readyz', startupProbe: '/healthz' }[kind];
      if (probe.httpGet?.path !== path || !ports.has(probe.httpGet?.port))
        say(`${kind} must GET ${path} on a named port`);
    }
  }
}

/** HALLMARK_<SVC>_ADDR: own service listens on 0.0.0.0:port, others are dialled by headless Service (dns:///). */
function addrProblems(dep, c, ctx, say) {
  const component = dep.spec.template.metadata?.labels?.['app.kubernetes.io/component'];
  const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
  const grpc = (c.ports ?? []).find((p) => p.name === 'grpc');
  for (const svc of BACKENDS) {
    const name = `HALLMARK_${svc.toUpperCase()}_ADDR`;
    const value = env.get(name);
    if (value === undefined) {
      say(`env ${name} missing`);
    } else if (svc === component) {
      if (value !== `0.0.0.0:${grpc?.containerPort}`)
        say(`env ${name} must be 0.0.0.0:${grpc?.containerPort} (listen)`);
    } else {
      // dns:/// of a headless Service: every pod an address, calls round robin. A ClusterIP
      // Service name would give each client one connection to one pod (no load spreading).
      if (!value.startsWith('dns:///')) say(`env ${name}=${value}: dial dns:///<headless Service>:port`);
      const [host, port] = value.replace(/^dns:\/\/\//, '').split(':');
      const target = ctx.byKind('Service').find((s) => s.metadata.name === host);
      if (target && target.spec.clusterIP !== 'None')
        say(`env ${name}=${value}: ${host} is not headless (one connection would reach one pod)`);
      const servesPort = target?.spec.ports?.some((p) => String(p.port) === port);
      const pods = ctx
        .byKind('Deployment')
        .filter((d) => selects(target?.spec.selector, d.spec.template.metadata?.labels));
      const right =
        pods.length === 1 && pods[0].spec.template.metadata.labels['app.kubernetes.io/component'] === svc;
      if (!target || !servesPort || !right) say(`env ${name}=${value} does not reach the ${svc} Service`);
    }
  }
  // Metrics bind the pod's own address (opened to the scraper by the NetworkPolicy), never 0.0.0.0.
  const metricsHost = (c.env ?? []).filter((e) => e.name === 'HALLMARK_METRICS_HOST').at(-1); // the last one holds
  if (
    (c.ports ?? []).some((p) => p.name === 'metrics') &&
    metricsHost?.valueFrom?.fieldRef?.fieldPath !== 'status.podIP'
  )
    say('HALLMARK_METRICS_HOST must be the pod IP (fieldRef status.podIP)');
  if (component === 'gateway') {
    if (env.get('HALLMARK_HOST') !== '0.0.0.0') say('gateway HALLMARK_HOST must be 0.0.0.0');
    const http = (c.ports ?? []).find((p) => p.name === 'http');
    if (env.get('HALLMARK_PORT') !== String(http?.containerPort))
      say('gateway HALLMARK_PORT must match its http port');
  }
}

// The services that serve Restate handlers (bulk jobs, gifts, paid orders); no other has an endpoint.
export const RESTATE_SERVICES = ['bulk', 'certificates', 'platform'];
// The gateway's largest upload (a bulk ZIP) in bytes; the Ingress must let it through.
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const bytes = (v) => {
  const m = /^(\d+)([kmg]?)$/i.exec(String(v ?? '').trim());
  return m ? Number(m[1]) * { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase()] : NaN;
};
const component = (o) => o.spec?.template?.metadata?.labels?.['app.kubernetes.io/component'];
const hookOf = (o) => String(o.metadata?.annotations?.['helm.sh/hook'] ?? '');
const lastEnv = (c, name) => (c.env ?? []).filter((e) => e.name === name).at(-1);

/** Operations rules: Restate wiring, registration, upload size, egress, NATS, migrations, identity. */
function operationsProblems(docs, byKind, problems) {
  const deps = byKind('Deployment');
  const jobs = byKind('Job');
  const registration = jobs.find(
    (j) => /post-install/.test(hookOf(j)) && component(j) === 'restate-registration',
  );
  const registered = (
    registration?.spec.template.spec.containers[0].env?.find((e) => e.name === 'RESTATE_ENDPOINTS')?.value ??
    ''
  )
    .split(',')
    .filter(Boolean);
  for (const uri of registered) {
    // A Service by its bare or fully qualified name (ordering.mjs checks which one is needed),
    // with the release's path: each release is a deployment of its own (upgrade.md).
    const m = /^http:\/\/([^:/.]+)(?:\.[^:/]+)?:(\d+)(\/[^/]+)?$/.exec(uri);
    const svc = m && byKind('Service').find((s) => s.metadata.name === m[1]);
    const port = svc?.spec.ports?.find((p) => String(p.port) === m[2]);
    const who = svc?.spec.selector?.['app.kubernetes.io/component'];
    if (m && !m[3])
      problems.push(
        `Job/${registration.metadata.name}: registers ${uri} without its release path: every upgrade would re-register one URI under running workflows`,
      );
    if (!port || port.name !== 'restate')
      problems.push(`Job/${registration.metadata.name}: registers ${uri}, not a Service's restate port`);
    else if (!RESTATE_SERVICES.includes(who))
      problems.push(
        `Job/${registration.metadata.name}: registers ${uri}, but ${who} serves no Restate handlers`,
      );
  }
  for (const d of deps) {
    const svc = component(d);
    const c = d.spec.template.spec.containers[0];
    const say = (msg) => problems.push(`Deployment/${d.metadata.name}: ${msg}`);
    const restatePort = (c.ports ?? []).find((p) => p.name === 'restate');
    if (svc === 'gateway') continue;
    if (!RESTATE_SERVICES.includes(svc)) {
      if (restatePort) say(`${svc} serves no Restate handlers but exposes a restate port`);
    } else {
      const env = (k) => lastEnv(c, `HALLMARK_${svc.toUpperCase()}_RESTATE_${k}`)?.value;
      if (!restatePort) say(`${svc} serves Restate handlers but exposes no restate port`);
      // Each release's pods outlive the upgrade until their invocations drain (upgrade.md).
      if (d.metadata.annotations?.['helm.sh/resource-policy'] !== 'keep' || !lastEnv(c, 'HALLMARK_RELEASE'))
        say(
          `${svc} serves Restate handlers but its release is not kept through upgrades (resource-policy keep, HALLMARK_RELEASE)`,
        );
      else if (env('PORT') !== String(restatePort.containerPort))
        say(
          `${svc}'s Restate endpoint listens on HALLMARK_${svc.toUpperCase()}_RESTATE_PORT=${env('PORT') ?? '(default)'} but its restate port is ${restatePort.containerPort}`,
        );
      if (restatePort && env('HOST') !== '0.0.0.0') say(`${svc}'s Restate endpoint must listen on 0.0.0.0`);
      const self = env('REGISTER') === 'true';
      const byJob = registered.some((u) =>
        byKind('Service').some(
          (s) =>
            s.spec.selector?.['app.kubernetes.io/component'] === svc &&
            (u.startsWith(`http://${s.metadata.name}:`) || u.startsWith(`http://${s.metadata.name}.`)),
        ),
      );
      if (!self && !byJob)
        say(
          `${svc}'s Restate endpoint is registered by nothing (no registration Job entry, REGISTER not true)`,
        );
      if (!(c.env ?? []).some((e) => e.name === 'HALLMARK_RESTATE_IDENTITY_KEYS'))
        say(`${svc}'s Restate endpoint gets no HALLMARK_RESTATE_IDENTITY_KEYS (request signing)`);
    }
    if (lastEnv(c, 'HALLMARK_MIGRATE_AT_START')?.value !== 'false')
      say('runs migrations at start (HALLMARK_MIGRATE_AT_START must be false: a hook Job migrates)');
  }
  const migrations = jobs.find((j) => component(j) === 'migrations');
  if (!migrations || !/pre-install/.test(hookOf(migrations)) || !/pre-upgrade/.test(hookOf(migrations)))
    problems.push('no pre-install,pre-upgrade migrations hook Job');
  for (const ing of byKind('Ingress')) {
    const size = bytes(ing.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size']);
    if (!(size >= MAX_UPLOAD_BYTES))
      problems.push(
        `Ingress/${ing.metadata.name}: proxy-body-size must allow the gateway's 100 MB ZIP upload (got ${ing.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size'] ?? 'unset: 1m'})`,
      );
  }
  for (const np of byKind('NetworkPolicy')) {
    const types = np.spec.policyTypes ?? [];
    const dns = (np.spec.egress ?? []).some((r) => (r.ports ?? []).some((p) => p.port === 53));
    if (!types.includes('Egress')) problems.push(`NetworkPolicy/${np.metadata.name}: restricts no egress`);
    else if (!dns) problems.push(`NetworkPolicy/${np.metadata.name}: egress without DNS`);
  }
  const cm = byKind('ConfigMap')[0]?.data ?? {};
  const maxDeliver = Number(cm.HALLMARK_NATS_MAX_DELIVER);
  if (!(maxDeliver >= 2))
    problems.push(
      'ConfigMap: HALLMARK_NATS_MAX_DELIVER must be set (≥ 2): consumers would redeliver forever',
    );
  for (const k of ['HALLMARK_NATS_STREAM_REPLICAS', 'HALLMARK_NATS_STREAM_MAX_AGE_HOURS'])
    if (!/^\d+$/.test(cm[k] ?? '')) problems.push(`ConfigMap: ${k} must be set`);
}

export function policyProblems(docs, external) {
  const problems = [];
  const byKind = (k) => docs.filter((d) => d.kind === k);
  const rendered = (kind, name) => byKind(kind).some((d) => d.metadata.name === name);
  const ctx = {
    byKind,
    rendered,
    secretExists: (name) => rendered('Secret', name) || external.secrets.includes(name),
    secretHasKey: (name, key) =>
      byKind('Secret').some(
        (s) => s.metadata.name === name && (s.stringData?.[key] ?? s.data?.[key]) !== undefined,
      ),
  };
  const seen = new Set();
  for (const d of docs) {
    const id = `${d.kind}/${d.metadata?.name}`;
    const say = (msg) => problems.push(`${id}: ${msg}`);
    if (seen.has(id)) say('rendered twice');
    seen.add(id);
    const name = d.metadata?.name ?? '';
    if (
      d.kind === 'Service'
        ? !DNS_LABEL.test(name) || name.length > 63
        : !DNS_SUBDOMAIN.test(name) || name.length > 253
    ) {
      say('name is not a valid DNS name for its kind');
    }
    for (const [k, v] of Object.entries(d.metadata?.labels ?? {}))
      if (String(v).length > 63) say(`label ${k} longer than 63`);
    if (d.kind === 'ConfigMap') {
      for (const [k, v] of Object.entries(d.data ?? {}))
        if (FLOATY.test(v)) say(`${k}=${v}: a number printed as a float`);
    }
    const pod =
      d.kind === 'Deployment' || d.kind === 'Job'
        ? d.spec.template
        : d.kind === 'CronJob'
          ? d.spec.jobTemplate?.spec?.template
          : null;
    if (pod) podProblems(pod, ctx, say);
    // Its Jobs are named <cronjob>-<minutes since the epoch>: the API refuses a longer name.
    if (d.kind === 'CronJob' && name.length > 52) say('a CronJob name is at most 52 characters');
    if (d.kind === 'Deployment') {
      if (!selects(d.spec.selector?.matchLabels, pod.metadata?.labels))
        say('selector does not match its pod labels');
      for (const c of pod.spec.containers) {
        probeProblems(d, c, (m) => say(`container ${c.name}: ${m}`));
        addrProblems(d, c, ctx, (m) => say(`container ${c.name}: ${m}`));
      }
      const hpa = byKind('HorizontalPodAutoscaler').some((h) => h.spec.scaleTargetRef.name === name);
      if (hpa && d.spec.replicas !== undefined) say('has an HPA, so must not set spec.replicas');
    }
    if (d.kind === 'Service') {
      const pods = byKind('Deployment').filter((x) =>
        selects(d.spec.selector, x.spec.template.metadata?.labels),
      );
      if (pods.length !== 1) say(`selector matches ${pods.length} Deployments (want 1)`);
      const ports = pods[0]?.spec.template.spec.containers.flatMap((c) => c.ports ?? []) ?? [];
      for (const p of d.spec.ports ?? []) {
        if (!ports.some((cp) => cp.name === p.targetPort || cp.containerPort === p.targetPort))
          say(`targetPort ${p.targetPort} not on its pods`);
      }
    }
    if (d.kind === 'Service' && d.spec.ports?.some((p) => p.name === 'metrics')) {
      // Metrics stay inside the cluster: never on a Service an Ingress or a load balancer exposes.
      const exposed =
        d.spec.type === 'LoadBalancer' ||
        d.spec.type === 'NodePort' ||
        byKind('Ingress').some((i) =>
          (i.spec.rules ?? []).some((r) =>
            (r.http?.paths ?? []).some((x) => x.backend.service?.name === d.metadata.name),
          ),
        );
      if (exposed) say('exposes the metrics port publicly');
    }
    if (d.kind === 'ServiceMonitor') {
      const targets = byKind('Service').filter(
        (svc) =>
          selects(d.spec.selector.matchLabels, svc.metadata.labels) &&
          d.spec.endpoints.some((e) => svc.spec.ports?.some((p) => p.name === e.port)),
      );
      const scraped = (dep) =>
        targets.some((svc) => selects(svc.spec.selector, dep.spec.template.metadata?.labels));
      if (targets.length === 0) say('selects no Service with its port');
      for (const dep of byKind('Deployment')) if (!scraped(dep)) say(`does not scrape ${dep.metadata.name}`);
    }
    if (d.kind === 'Deployment') {
      const ann = d.spec.template.metadata?.annotations ?? {};
      if (ann['prometheus.io/scrape'] === 'true') {
        const ports = d.spec.template.spec.containers.flatMap((c) => c.ports ?? []);
        if (!ports.some((p) => p.name === 'metrics' && String(p.containerPort) === ann['prometheus.io/port']))
          say('prometheus.io/port is not its metrics container port');
      }
    }
    if (d.kind === 'HorizontalPodAutoscaler') {
      if (!rendered('Deployment', d.spec.scaleTargetRef.name)) say('scaleTargetRef not rendered');
      if (d.spec.minReplicas > d.spec.maxReplicas) say('minReplicas > maxReplicas');
    }
    if (d.kind === 'PodDisruptionBudget' || d.kind === 'NetworkPolicy') {
      const sel =
        d.kind === 'PodDisruptionBudget' ? d.spec.selector?.matchLabels : d.spec.podSelector?.matchLabels;
      const templates = [
        ...byKind('Deployment').map((x) => x.spec.template),
        ...(d.kind === 'NetworkPolicy' ? byKind('CronJob').map((x) => x.spec.jobTemplate.spec.template) : []),
      ];
      if (!templates.some((t) => selects(sel, t.metadata?.labels))) say('selects no pods');
    }
    if (d.kind === 'Ingress') {
      for (const path of (d.spec.rules ?? []).flatMap((r) => r.http?.paths ?? [])) {
        const { name: svc, port } = path.backend.service ?? {};
        const target = byKind('Service').find((s) => s.metadata.name === svc);
        if (!target?.spec.ports?.some((p) => p.port === port?.number || p.name === port?.name))
          say(`backend ${svc}:${port?.number ?? port?.name} not rendered`);
      }
    }
  }
  const components = byKind('Deployment').map(
    (d) => d.spec.template.metadata?.labels?.['app.kubernetes.io/component'],
  );
  for (const svc of SERVICES)
    if (!components.includes(svc)) problems.push(`no Deployment for service ${svc}`);
  operationsProblems(docs, byKind, problems);
  return problems;
}
