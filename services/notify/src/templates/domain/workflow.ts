// Workflow templates: a trigger (event + conditions) and a graph of steps linked by
// onSuccess / onFailure. Every reference must name a step of the template and the graph
// must be acyclic, so a workflow always ends. Pure.
import { invalidParam, missingParam } from '@hallmark/kit/errors';

export const STEP_TYPES = ['action', 'notification', 'approval', 'delay'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'contains',
  'not_contains',
  'in',
  'not_in',
  'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Condition {
  field: string;
  operator: Operator;
  value?: unknown;
}

export interface Trigger {
  event: string;
  conditions: Condition[];
}

export interface Step {
  id: string;
  type: StepType;
  config: Record<string, unknown>;
  onSuccess?: string;
  onFailure?: string;
}

export interface ConditionInput {
  field?: unknown;
  operator?: unknown;
  value?: unknown;
}
export interface TriggerInput {
  event?: unknown;
  conditions?: ConditionInput[];
}
export interface StepInput {
  id?: unknown;
  type?: unknown;
  config?: unknown;
  onSuccess?: unknown;
  onFailure?: unknown;
}

export const MAX_STEPS = 100;
const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/;
const EVENT = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*$/;

export function parseConditions(list: ConditionInput[] | undefined, at: string): Condition[] {
  return (list ?? []).map((c, i) => {
    const p = `${at}[${i}]`;
    if (typeof c.field !== 'string' || !FIELD.test(c.field) || c.field.length > 200)
      throw invalidParam(`${p}.field`, `Invalid ${p}.field: a dotted path such as data.object.amount.`);
    if (!OPERATORS.includes(c.operator as Operator))
      throw invalidParam(`${p}.operator`, `Invalid ${p}.operator: one of ${OPERATORS.join(', ')}.`);
    const operator = c.operator as Operator;
    const value = c.value;
    if ((operator === 'in' || operator === 'not_in') && !Array.isArray(value))
      throw invalidParam(`${p}.value`, `Invalid ${p}.value: ${operator} compares against an array.`);
    if (operator.startsWith('greater_') || operator.startsWith('less_')) {
      if (typeof value !== 'number' && typeof value !== 'string')
        throw invalidParam(
          `${p}.value`,
          `Invalid ${p}.value: ${operator} compares against a number or date.`,
        );
    }
    if (operator === 'exists') {
      if (value !== undefined && value !== null && typeof value !== 'boolean')
        throw invalidParam(`${p}.value`, `Invalid ${p}.value: exists takes true, false or nothing.`);
    } else if (value === undefined || value === null) {
      throw missingParam(`${p}.value`);
    }
    return value === undefined || value === null
      ? { field: c.field, operator }
      : { field: c.field, operator, value };
  });
}

export function parseTrigger(input: TriggerInput | undefined): Trigger {
  if (!input) throw missingParam('trigger');
  if (typeof input.event !== 'string' || !EVENT.test(input.event))
    throw invalidParam('trigger.event', 'Invalid trigger.event: an event type such as voucher.redeemed.');
  return { event: input.event, conditions: parseConditions(input.conditions, 'trigger.conditions') };
}

const optionalRef = (v: unknown, param: string): string | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalidParam(param, `Invalid ${param}: a step id.`);
  return v;
};

/** Parses the steps and checks the graph: unique ids, resolvable references, no cycle. */
export function parseSteps(list: StepInput[] | undefined): Step[] {
  if (!list || list.length === 0) throw missingParam('steps');
  if (list.length > MAX_STEPS) throw invalidParam('steps', `At most ${MAX_STEPS} steps.`);
  const steps = list.map((s, i): Step => {
    const p = `steps[${i}]`;
    if (typeof s.id !== 'string' || !STEP_ID.test(s.id))
      throw invalidParam(`${p}.id`, `Invalid ${p}.id: 1–64 letters, digits, _ or -.`);
    if (!STEP_TYPES.includes(s.type as StepType))
      throw invalidParam(`${p}.type`, `Invalid ${p}.type: one of ${STEP_TYPES.join(', ')}.`);
    if (
      s.config !== undefined &&
      s.config !== null &&
      (typeof s.config !== 'object' || Array.isArray(s.config))
    )
      throw invalidParam(`${p}.config`, `Invalid ${p}.config: an object.`);
    const step: Step = {
      id: s.id,
      type: s.type as StepType,
      config: (s.config as Record<string, unknown>) ?? {},
    };
    const onSuccess = optionalRef(s.onSuccess, `${p}.onSuccess`);
    const onFailure = optionalRef(s.onFailure, `${p}.onFailure`);
    if (onSuccess !== undefined) step.onSuccess = onSuccess;
    if (onFailure !== undefined) step.onFailure = onFailure;
    return step;
  });
  checkGraph(steps);
  return steps;
}

export function checkGraph(steps: readonly Step[]): void {
  const index = new Map<string, number>();
  steps.forEach((s, i) => {
    if (index.has(s.id)) throw invalidParam(`steps[${i}].id`, `Step id '${s.id}' is used twice.`);
    index.set(s.id, i);
  });
  steps.forEach((s, i) => {
    for (const edge of ['onSuccess', 'onFailure'] as const) {
      const target = s[edge];
      if (target === undefined) continue;
      if (!index.has(target))
        throw invalidParam(
          `steps[${i}].${edge}`,
          `steps[${i}].${edge} names '${target}', which is not a step.`,
        );
    }
  });
  const cycle = findCycle(steps);
  if (cycle) {
    const first = index.get(cycle[0]!)!;
    throw invalidParam('steps', `The steps form a cycle: ${cycle.join(' → ')} (at steps[${first}]).`);
  }
}

/** The first cycle found (ids, closed: [a, b, a]), or null. Iterative DFS with colours. */
export function findCycle(steps: readonly Step[]): string[] | null {
  const next = new Map(steps.map((s) => [s.id, [s.onSuccess, s.onFailure].filter((t) => t !== undefined)]));
  const state = new Map<string, 'open' | 'done'>();
  for (const root of steps) {
    if (state.has(root.id)) continue;
    const path: string[] = [];
    const stack: { id: string; edge: number }[] = [{ id: root.id, edge: 0 }];
    state.set(root.id, 'open');
    path.push(root.id);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = next.get(top.id)!;
      if (top.edge >= targets.length) {
        state.set(top.id, 'done');
        stack.pop();
        path.pop();
        continue;
      }
      const t = targets[top.edge++]!;
      const s = state.get(t);
      if (s === 'open') return [...path.slice(path.indexOf(t)), t];
      if (s === undefined) {
        state.set(t, 'open');
        path.push(t);
        stack.push({ id: t, edge: 0 });
      }
    }
  }
  return null;
}
