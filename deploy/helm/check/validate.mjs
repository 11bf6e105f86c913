// Validates `helm template` output offline. Usage:
//   node validate.mjs <values.yaml> <rendered.yaml> [<values.yaml> <rendered.yaml> …]
// For each rendered value set: every object against the Kubernetes API schema with unknown
// fields rejected (schema.mjs), then Hallmark's own rules (policy.mjs) and Helm's install order
// and cross-namespace names (ordering.mjs). Exits 1 on any problem.
// Run by scripts/helm-check.sh from its tool cache, where its npm dependencies are installed.
/* global process, console */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { availabilityProblems } from './availability.mjs';
import { crossNamespaceProblems, egressProblems, orderingProblems } from './ordering.mjs';
import { policyProblems } from './policy.mjs';
import { schemaProblems } from './schema.mjs';

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  console.error('usage: node validate.mjs <values.yaml> <rendered.yaml> [...]');
  process.exit(2);
}

let failed = 0;
for (let i = 0; i < args.length; i += 2) {
  const [valuesFile, renderedFile] = [args[i], args[i + 1]];
  const label = basename(valuesFile, '.yaml');
  const values = parse(readFileSync(valuesFile, 'utf8')) ?? {};
  // Secrets the chart is told exist outside it; any other reference must be rendered.
  const external = {
    secrets: [
      values.secrets?.existingSecret,
      values.redis?.existingSecret,
      values.migrations?.secretName,
      values.backup?.secretName,
      values.backup?.s3?.secretName,
      ...Object.values(values.services ?? {}).map((svc) => svc?.secretName),
    ].filter(Boolean),
  };
  const problems = [];
  const docs = [];
  for (const doc of parseAllDocuments(readFileSync(renderedFile, 'utf8'))) {
    if (doc.errors.length) problems.push(...doc.errors.map((e) => `YAML: ${e.message}`));
    const obj = doc.toJS();
    if (obj) docs.push(obj);
  }
  for (const d of docs) {
    for (const p of await schemaProblems(d)) problems.push(`${d.kind}/${d.metadata?.name}: ${p}`);
  }
  problems.push(...policyProblems(docs, external));
  // Helm's install order and names across namespaces (the release renders into NAMESPACE).
  problems.push(...orderingProblems(docs));
  problems.push(...crossNamespaceProblems(docs, process.env.HALLMARK_CHECK_NAMESPACE ?? 'hallmark'));
  problems.push(...availabilityProblems(docs));
  problems.push(...egressProblems(docs, process.env.HALLMARK_CHECK_NAMESPACE ?? 'hallmark'));

  const kinds = {};
  for (const d of docs) kinds[d.kind] = (kinds[d.kind] ?? 0) + 1;
  const summary = Object.entries(kinds)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  if (problems.length === 0) {
    console.log(`ok   ${label}: ${docs.length} objects (${summary}): API schema, no unknown fields, policy`);
  } else {
    failed++;
    console.log(`FAIL ${label}: ${problems.length} problem(s)`);
    for (const p of problems) console.log(`     - ${p}`);
  }
}
process.exit(failed ? 1 : 0);
