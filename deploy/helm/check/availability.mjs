// Rules that keep one part's trouble from becoming an outage, over a rendered release:
// a PodDisruptionBudget must cover a workload that can lose a pod (two replicas at least, or
// an autoscaler's minimum of two): over one replica it protects nothing and only blocks node
// drains; every Deployment's containers wait before SIGTERM (a preStop delay) so that clients
// stop sending to a pod before it stops taking calls, and the grace period leaves room for it.

const podsOf = (docs, selector) =>
  docs.filter(
    (d) =>
      d.kind === 'Deployment' &&
      Object.keys(selector ?? {}).length > 0 &&
      Object.entries(selector).every(([k, v]) => d.spec.template.metadata?.labels?.[k] === v),
  );

export function availabilityProblems(docs) {
  const problems = [];
  const hpaMin = (name) =>
    docs.find((d) => d.kind === 'HorizontalPodAutoscaler' && d.spec.scaleTargetRef?.name === name)?.spec
      .minReplicas;
  for (const pdb of docs.filter((d) => d.kind === 'PodDisruptionBudget')) {
    for (const dep of podsOf(docs, pdb.spec.selector?.matchLabels)) {
      const replicas = hpaMin(dep.metadata.name) ?? dep.spec.replicas ?? 1;
      if (replicas < 2)
        problems.push(
          `PodDisruptionBudget/${pdb.metadata.name}: ${dep.metadata.name} runs ${replicas} replica: ` +
            'the budget protects nothing (run two or more, or leave the budget off)',
        );
    }
  }
  for (const dep of docs.filter((d) => d.kind === 'Deployment')) {
    const spec = dep.spec.template.spec;
    for (const c of spec.containers ?? []) {
      const delay = c.lifecycle?.preStop?.sleep?.seconds;
      if (!(delay > 0)) {
        problems.push(`Deployment/${dep.metadata.name}: container ${c.name} has no preStop delay`);
        continue;
      }
      const grace = spec.terminationGracePeriodSeconds ?? 30;
      if (grace < delay + 10)
        problems.push(
          `Deployment/${dep.metadata.name}: terminationGracePeriodSeconds ${grace} leaves under 10 s ` +
            `to drain after the ${delay} s preStop delay`,
        );
    }
  }
  return problems;
}
