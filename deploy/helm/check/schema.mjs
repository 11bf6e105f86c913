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

/** All API-schema problems of one object (empty when it is valid). */
export async function schemaProblems(doc) {
  const { apiVersion, kind } = doc;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return ['apiVersion and kind are required'];
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
