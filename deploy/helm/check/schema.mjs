// Kubernetes API schema checks of rendered manifests, offline, in two layers:
// - kubernetes-models: the API's JSON schemas (types, required fields, formats). Those schemas
//   allow unknown properties, as the API server's non-strict decoding does.
// - @kubernetes/client-node's generated models list every field of every API type; walking the
//   manifest against them rejects unknown fields (the API server's `--validate=strict`), so a
//   misspelt field such as `readOnlyRootFilesytem` fails instead of being silently dropped.
import * as k8sTypes from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';

const modelModules = new Map();

async function modelClass(apiVersion, kind) {
  if (!modelModules.has(apiVersion)) {
    modelModules.set(apiVersion, await import(`kubernetes-models/${apiVersion}`).catch(() => null));
  }
  return modelModules.get(apiVersion)?.[kind];
}

/** `apps/v1` + `Deployment` → `V1Deployment`; `autoscaling/v2` → `V2…`; `v1beta1` → `V1beta1…`. */
function typeName(apiVersion, kind) {
  const version = apiVersion.split('/').pop();
  return version[0].toUpperCase() + version.slice(1) + kind;
}

const PRIMITIVES = new Set(['string', 'number', 'boolean', 'Date', 'any', 'IntOrString', 'V1MicroTime']);

/** Unknown fields of `value` read as API type `type`, as JSON-pointer-like paths. */
function unknownFields(value, type, path, out) {
  if (value === null || value === undefined || PRIMITIVES.has(type)) return out;
  let m = type.match(/^Array<(.+)>$/);
  if (m) {
    if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, m[1], `${path}/${i}`, out));
    return out;
  }
  m = type.match(/^\{ \[key: string\]: (.+); \}$/);
  if (m) {
    if (typeof value === 'object')
      for (const [k, v] of Object.entries(value)) unknownFields(v, m[1], `${path}/${k}`, out);
    return out;
  }
  const model = k8sTypes[type];
  if (!model?.getAttributeTypeMap || typeof value !== 'object' || Array.isArray(value)) return out;
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [key, v] of Object.entries(value)) {
    if (!fields.has(key)) out.push(`${path}/${key}: unknown field (not in ${type})`);
    else unknownFields(v, fields.get(key), `${path}/${key}`, out);
  }
  return out;
}

/**
 * The Prometheus Operator's ServiceMonitor is a CRD, not in the Kubernetes API schemas: its
 * fields the chart uses are checked by hand (unknown ones refused, as for the built-in kinds).
 */
function serviceMonitorProblems(doc) {
  const out = [];
  const only = (obj, path, allowed) => {
    for (const k of Object.keys(obj ?? {})) if (!allowed.includes(k)) out.push(`${path}/${k}: unknown field`);
  };
  only(doc, '', ['apiVersion', 'kind', 'metadata', 'spec']);
  only(doc.spec, '/spec', ['selector', 'namespaceSelector', 'endpoints']);
  if (!doc.spec?.selector?.matchLabels) out.push('/spec/selector/matchLabels: required');
  const eps = doc.spec?.endpoints;
  if (!Array.isArray(eps) || eps.length === 0) out.push('/spec/endpoints: at least one');
  (eps ?? []).forEach((e, i) => {
    only(e, `/spec/endpoints/${i}`, ['port', 'path', 'interval', 'scrapeTimeout', 'honorLabels']);
    if (typeof e.port !== 'string') out.push(`/spec/endpoints/${i}/port: a port name`);
    if (e.honorLabels !== undefined && typeof e.honorLabels !== 'boolean')
      out.push(`/spec/endpoints/${i}/honorLabels: a boolean`);
    for (const k of ['interval', 'scrapeTimeout'])
      if (e[k] !== undefined && !/^\d+(ms|s|m|h)$/.test(e[k]))
        out.push(`/spec/endpoints/${i}/${k}: a duration`);
  });
  return out;
}

/** A duration in Prometheus's syntax (`5m`, `1h30m`). */
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

/**
 * The Operator's PrometheusRule (a CRD too): groups of named rules, each a `record` or an
 * `alert` with an `expr`; alerts' labels and annotations string maps. promtool checks the
 * expressions themselves (scripts/helm-check.sh).
 */
function prometheusRuleProblems(doc) {
  const out = [];
  const only = (obj, path, allowed) => {
    for (const k of Object.keys(obj ?? {})) if (!allowed.includes(k)) out.push(`${path}/${k}: unknown field`);
  };
  only(doc, '', ['apiVersion', 'kind', 'metadata', 'spec']);
  only(doc.spec, '/spec', ['groups']);
  const groups = doc.spec?.groups;
  if (!Array.isArray(groups) || groups.length === 0) out.push('/spec/groups: at least one');
  (groups ?? []).forEach((g, i) => {
    const at = `/spec/groups/${i}`;
    only(g, at, ['name', 'interval', 'rules']);
    if (typeof g.name !== 'string' || !g.name) out.push(`${at}/name: required`);
    (g.rules ?? []).forEach((r, j) => {
      const rat = `${at}/rules/${j}`;
      only(r, rat, ['record', 'alert', 'expr', 'for', 'labels', 'annotations']);
      if (!!r.record === !!r.alert) out.push(`${rat}: exactly one of record and alert`);
      if (typeof r.expr !== 'string' || !r.expr.trim()) out.push(`${rat}/expr: required`);
      if (r.for !== undefined && !DURATION.test(r.for)) out.push(`${rat}/for: a duration`);
      for (const m of ['labels', 'annotations'])
        for (const [k, v] of Object.entries(r[m] ?? {}))
          if (typeof v !== 'string') out.push(`${rat}/${m}/${k}: a string`);
    });
  });
  return out;
}

/** All API-schema problems of one object (empty when it is valid). */
export async function schemaProblems(doc) {
  const { apiVersion, kind } = doc;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return ['apiVersion and kind are required'];
  if (apiVersion === 'monitoring.coreos.com/v1' && kind === 'ServiceMonitor')
    return serviceMonitorProblems(doc);
  if (apiVersion === 'monitoring.coreos.com/v1' && kind === 'PrometheusRule')
    return prometheusRuleProblems(doc);
  const Model = await modelClass(apiVersion, kind);
  const rootType = typeName(apiVersion, kind);
  if (!Model || !k8sTypes[rootType]) return [`${apiVersion} ${kind}: not a known Kubernetes API type`];
  const problems = [];
  try {
    new Model(doc).validate();
  } catch (err) {
    const errors = err.errors ?? [{ instancePath: '', message: err.message }];
    for (const e of errors) problems.push(`${e.instancePath || '/'}: ${e.message}`);
  }
  return problems.concat(unknownFields(doc, rootType, '', []));
}
