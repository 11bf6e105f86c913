// What a real `helm install` does that `helm template` hides, as rules over the rendering:
//
// 1. Order. Helm creates pre-install hooks first, by ascending `helm.sh/hook-weight`, each
//    waited for (a Job until it completes); the release's ordinary objects come only after
//    them. So a pre-install hook's pod may use only what exists already: a hook of the same
//    phase with a lower weight, or something the chart does not render (made outside it, or
//    Kubernetes's own `default` ServiceAccount). A hook Job under the release's ServiceAccount
//    is refused on a first install ("serviceaccount not found") until the install times out.
// 2. Names across namespaces. A bare Service name resolves only inside its own namespace;
//    whatever the release hands to a component in another namespace (Restate, which calls the
//    registered endpoints back) must be `<name>.<namespace>.svc…`.

/* global URL */
const hooksOf = (o) =>
  String(o.metadata?.annotations?.['helm.sh/hook'] ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
const weightOf = (o) => Number(o.metadata?.annotations?.['helm.sh/hook-weight'] ?? 0);
const podSpecOf = (o) => o.spec?.template?.spec ?? (o.kind === 'Pod' ? o.spec : undefined);

/** Every object a pod spec needs to exist before its pod can start: [kind, name, where]. */
function podReferences(spec) {
  const refs = [['ServiceAccount', spec.serviceAccountName ?? 'default', 'serviceAccountName']];
  for (const v of spec.volumes ?? []) {
    if (v.configMap) refs.push(['ConfigMap', v.configMap.name, `volume ${v.name}`]);
    if (v.secret) refs.push(['Secret', v.secret.secretName, `volume ${v.name}`]);
  }
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const f of c.envFrom ?? []) {
      if (f.configMapRef) refs.push(['ConfigMap', f.configMapRef.name, `container ${c.name} envFrom`]);
      if (f.secretRef) refs.push(['Secret', f.secretRef.name, `container ${c.name} envFrom`]);
    }
    for (const e of c.env ?? []) {
      const cm = e.valueFrom?.configMapKeyRef;
      const sec = e.valueFrom?.secretKeyRef;
      if (cm) refs.push(['ConfigMap', cm.name, `container ${c.name} env ${e.name}`]);
      if (sec) refs.push(['Secret', sec.name, `container ${c.name} env ${e.name}`]);
    }
  }
  return refs;
}

export function orderingProblems(docs) {
  const problems = [];
  const find = (kind, name) => docs.find((d) => d.kind === kind && d.metadata?.name === name);
  for (const doc of docs) {
    const spec = podSpecOf(doc);
    if (!spec) continue;
    for (const phase of ['pre-install', 'pre-upgrade']) {
      if (!hooksOf(doc).includes(phase)) continue;
      for (const [kind, name, where] of podReferences(spec)) {
        const target = find(kind, name);
        if (!target) continue; // made outside the chart (or Kubernetes's default): there already
        const at = `${doc.kind}/${doc.metadata.name} (${phase} hook, weight ${weightOf(doc)}) ${where}`;
        if (!hooksOf(target).includes(phase)) {
          // On an upgrade the previous release's object usually exists, but not on an install
          // nor when the name changed: refuse both alike.
          problems.push(
            `${at}: ${kind}/${name} is created only after the ${phase} hooks (Helm's order); ` +
              `make it a ${phase} hook of lower weight, or use one that exists before the release`,
          );
        } else if (weightOf(target) >= weightOf(doc)) {
          problems.push(
            `${at}: ${kind}/${name} is a hook of weight ${weightOf(target)}, not lower: ` +
              'Helm may not have created it yet',
          );
        }
      }
    }
  }
  return problems;
}

/** `http://name.ns.svc…:port` → its namespace, or null for a bare (namespace-relative) name. */
function namespaceOfHost(url) {
  let host;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const labels = host.split('.');
  if (labels.length === 1) return null;
  if (labels[2] === 'svc') return labels[1];
  return undefined; // an outside name (a load balancer, a mesh host): not ours to judge
}

/**
 * The Restate registration: the endpoints handed to Restate must resolve from Restate's own
 * namespace (read from its admin URL), so a bare name is refused when that is another one.
 */
export function crossNamespaceProblems(docs, namespace) {
  const problems = [];
  const config = docs.find((d) => d.kind === 'ConfigMap' && d.data?.HALLMARK_RESTATE_ADMIN_URL);
  const job = docs.find(
    (d) =>
      d.kind === 'Job' &&
      (podSpecOf(d)?.containers ?? []).some((c) => (c.env ?? []).some((e) => e.name === 'RESTATE_ENDPOINTS')),
  );
  if (!config || !job) return problems;
  const restateNs = namespaceOfHost(config.data.HALLMARK_RESTATE_ADMIN_URL);
  const inOwnNamespace = restateNs === null || restateNs === namespace;
  const endpoints = podSpecOf(job)
    .containers.flatMap((c) => c.env ?? [])
    .find((e) => e.name === 'RESTATE_ENDPOINTS')
    .value.split(',');
  for (const uri of endpoints) {
    const ns = namespaceOfHost(uri);
    if (ns === null && !inOwnNamespace)
      problems.push(
        `Job/${job.metadata.name} registers ${uri} without a namespace, but Restate runs in ` +
          `namespace ${restateNs} (${config.data.HALLMARK_RESTATE_ADMIN_URL}) and cannot resolve it: ` +
          `use <name>.${namespace}.svc.<clusterDomain>`,
      );
    if (ns && ns !== namespace)
      problems.push(
        `Job/${job.metadata.name} registers ${uri}, in namespace ${ns}, not the release's (${namespace})`,
      );
  }
  return problems;
}

/** Namespaces a pod's egress policies let it reach, or null when no policy limits its egress. */
function egressNamespaces(docs, labels) {
  const policies = docs.filter(
    (d) =>
      d.kind === 'NetworkPolicy' &&
      (d.spec.policyTypes ?? []).includes('Egress') &&
      Object.entries(d.spec.podSelector?.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v),
  );
  if (policies.length === 0) return null;
  const names = new Set();
  for (const p of policies)
    for (const rule of p.spec.egress ?? []) {
      if (!rule.to && !rule.ports) return null; // allows every destination, every port
      // A rule without `to` but with ports (DNS) is a port, not a namespace, allowed.
      for (const peer of rule.to ?? []) {
        const ns = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
        if (ns) names.add(ns);
      }
    }
  return names;
}

/**
 * Every in-cluster address a pod is told to call (`<name>.<ns>.svc…` in its env or the
 * ConfigMap it loads) must be in a namespace its egress policy allows: traces sent to a
 * collector the policy blocks are silently lost.
 */
export function egressProblems(docs, namespace) {
  const problems = [];
  for (const dep of docs.filter((d) => d.kind === 'Deployment')) {
    const spec = dep.spec.template.spec;
    const allowed = egressNamespaces(docs, dep.spec.template.metadata?.labels);
    if (!allowed) continue;
    const values = [];
    for (const c of spec.containers ?? []) {
      for (const e of c.env ?? []) if (typeof e.value === 'string') values.push([e.name, e.value]);
      for (const f of c.envFrom ?? []) {
        const cm =
          f.configMapRef &&
          docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === f.configMapRef.name);
        for (const [k, v] of Object.entries(cm?.data ?? {})) values.push([k, v]);
      }
    }
    for (const [name, value] of values)
      for (const part of String(value).split(',')) {
        const ns = namespaceOfHost(part.trim());
        if (ns && ns !== namespace && !allowed.has(ns))
          problems.push(
            `Deployment/${dep.metadata.name}: ${name}=${part.trim()} is in namespace ${ns}, ` +
              'which its NetworkPolicy egress does not allow',
          );
      }
  }
  return [...new Set(problems)];
}
