// Pure rules of templates: placeholders, variable declarations and typed formatting,
// workflow graphs, kind-specific validation and patches.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { checkDeclared, escapeHtml, fill, parsePlaceholders } from '../src/templates/domain/placeholders.js';
import { applyPatch, buildTemplate, type TemplateInput } from '../src/templates/domain/template.js';
import {
  formatValue,
  minorToDecimal,
  parseLocale,
  parseVariables,
  resolveValues,
} from '../src/templates/domain/variables.js';
import { findCycle, parseSteps, type Step } from '../src/templates/domain/workflow.js';
import { effectiveAccess, requireAccess } from '../src/templates/domain/access.js';

function thrown(fn: () => unknown): HallmarkError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    return err as HallmarkError;
  }
  throw new Error('expected a HallmarkError');
}

const doc = (over: TemplateInput = {}): TemplateInput => ({
  name: 'Invoice',
  type: 'invoice',
  format: 'html',
  template: '<h1>Invoice for {{customer}}</h1><p>Total {{ total }}</p>',
  variables: [
    { name: 'customer', type: 'string', required: true },
    { name: 'total', type: 'currency', required: true },
  ],
  ...over,
});

describe('placeholders', () => {
  it('finds every {{name}}, spaces inside the braces allowed', () => {
    expect(parsePlaceholders('Hi {{a}}, {{ b_2 }}!{{a}}', 'template').map((p) => p.name)).toEqual([
      'a',
      'b_2',
      'a',
    ]);
  });

  it('refuses an invalid name and an unclosed placeholder, naming the field', () => {
    expect(thrown(() => parsePlaceholders('Hi {{first name}}', 'body'))).toMatchObject({
      code: 'parameter_invalid',
      param: 'body',
    });
    const unclosed = thrown(() => parsePlaceholders('Hi {{name} and more', 'template'));
    expect(unclosed.message).toContain('Unclosed placeholder');
  });

  it('refuses an undeclared placeholder, naming it', () => {
    const err = thrown(() =>
      checkDeclared('Dear {{customer}}, {{amount}}', 'template', new Set(['customer'])),
    );
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'template' });
    expect(err.message).toContain('{{amount}}');
  });

  it('fills values and leaves other text as is', () => {
    expect(fill('a {{x}} b {{ y }} c', (n) => n.toUpperCase())).toBe('a X b Y c');
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;',
    );
  });
});

describe('variables', () => {
  it('validates declarations: names, duplicates, types, defaults of the right type', () => {
    expect(thrown(() => parseVariables([{ name: '1x', type: 'string' }])).param).toBe('variables[0].name');
    expect(
      thrown(() =>
        parseVariables([
          { name: 'a', type: 'string' },
          { name: 'a', type: 'number' },
        ]),
      ).param,
    ).toBe('variables[1].name');
    expect(thrown(() => parseVariables([{ name: 'a', type: 'money' }])).param).toBe('variables[0].type');
    expect(thrown(() => parseVariables([{ name: 'd', type: 'date', defaultValue: 'soon' }])).param).toBe(
      'variables[0].defaultValue',
    );
    expect(parseVariables([{ name: 'n', type: 'number', required: true, defaultValue: 3 }])).toEqual([
      { name: 'n', type: 'number', required: true, defaultValue: 3 },
    ]);
  });

  it('formats numbers, dates and currencies per locale', () => {
    expect(formatValue('number', 1234567.5, 'en-US', 'v')).toBe('1,234,567.5');
    expect(formatValue('number', '0.1', 'en-US', 'v')).toBe('0.1');
    expect(formatValue('number', 1234.5, 'de-DE', 'v')).toBe('1.234,5');
    expect(formatValue('date', '2025-01-31', 'en-US', 'v')).toBe('January 31, 2025');
    expect(formatValue('date', '2025-01-31T10:20:00Z', 'en-US', 'v')).toBe('January 31, 2025 at 10:20 AM');
    expect(formatValue('currency', { amount: 123456, currency: 'USD' }, 'en-US', 'v')).toBe('$1,234.56');
    expect(formatValue('currency', { amount: 500, currency: 'JPY' }, 'en-US', 'v')).toBe('¥500');
    expect(formatValue('currency', { amount: 1999, currency: 'eur' }, 'de-DE', 'v')).toBe('19,99\u00a0€');
    expect(formatValue('currency', { amount: 1234, currency: 'KWD' }, 'en-US', 'v')).toBe('KWD\u00a01.234');
  });

  it('converts minor units exactly', () => {
    expect(minorToDecimal(5, 2)).toBe('0.05');
    expect(minorToDecimal(-1999, 2)).toBe('-19.99');
    expect(minorToDecimal(900719925474099, 2)).toBe('9007199254740.99');
    expect(minorToDecimal(7, 0)).toBe('7');
  });

  it('refuses values of the wrong type, naming the variable', () => {
    expect(thrown(() => formatValue('number', 'ten', 'en-US', 'variables.total')).param).toBe(
      'variables.total',
    );
    expect(thrown(() => formatValue('date', '2025-02-30', 'en-US', 'variables.d')).param).toBe('variables.d');
    expect(thrown(() => formatValue('currency', 19.99, 'en-US', 'variables.c')).param).toBe('variables.c');
    expect(thrown(() => formatValue('currency', { amount: 1.5, currency: 'USD' }, 'en-US', 'v')).code).toBe(
      'parameter_invalid',
    );
    expect(
      thrown(() => formatValue('currency', { amount: 1, currency: 'XYZ' }, 'en-US', 'v')).message,
    ).toContain('unknown currency');
  });

  it('resolves values: given, else default, else required → 400 naming it; unknown names refused', () => {
    const vars = parseVariables([
      { name: 'customer', type: 'string', required: true },
      { name: 'note', type: 'string' },
      { name: 'count', type: 'number', required: true, defaultValue: 1 },
    ]);
    expect([...resolveValues(vars, { customer: 'Ada' }, 'en-US')]).toEqual([
      ['customer', 'Ada'],
      ['note', ''],
      ['count', '1'],
    ]);
    const missing = thrown(() => resolveValues(vars, {}, 'en-US'));
    expect(missing).toMatchObject({ code: 'parameter_missing', param: 'variables.customer' });
    expect(missing.message).toContain('customer');
    expect(thrown(() => resolveValues(vars, { customer: 'A', custmer: 'B' }, 'en-US'))).toMatchObject({
      code: 'parameter_unknown',
      param: 'variables.custmer',
    });
  });

  it('checks locales', () => {
    expect(parseLocale(undefined)).toBe('en-US');
    expect(parseLocale('de-de')).toBe('de-DE');
    expect(thrown(() => parseLocale('not a locale')).param).toBe('locale');
  });
});

describe('workflow graph', () => {
  const step = (id: string, onSuccess?: string, onFailure?: string) => ({
    id,
    type: 'action',
    onSuccess,
    onFailure,
  });

  it('accepts a DAG with success and failure branches', () => {
    const steps = parseSteps([
      step('a', 'b', 'notify'),
      step('b', 'c'),
      { id: 'c', type: 'approval' },
      step('notify'),
    ]);
    expect(steps.map((s) => s.id)).toEqual(['a', 'b', 'c', 'notify']);
  });

  it('refuses a reference to a missing step, naming the field', () => {
    expect(thrown(() => parseSteps([step('a', 'nope')]))).toMatchObject({ param: 'steps[0].onSuccess' });
    expect(thrown(() => parseSteps([step('a'), step('b', undefined, 'x')]))).toMatchObject({
      param: 'steps[1].onFailure',
    });
  });

  it('refuses cycles: self loops, long loops, loops through failure edges', () => {
    expect(thrown(() => parseSteps([step('a', 'a')])).message).toContain('a → a');
    const long = thrown(() => parseSteps([step('a', 'b'), step('b', 'c'), step('c', undefined, 'a')]));
    expect(long).toMatchObject({ code: 'parameter_invalid', param: 'steps' });
    expect(long.message).toContain('a → b → c → a');
  });

  it('finds no cycle in a diamond (shared successor is not a cycle)', () => {
    const diamond: Step[] = [
      { id: 'a', type: 'action', config: {}, onSuccess: 'b', onFailure: 'c' },
      { id: 'b', type: 'action', config: {}, onSuccess: 'd' },
      { id: 'c', type: 'action', config: {}, onSuccess: 'd' },
      { id: 'd', type: 'notification', config: {} },
    ];
    expect(findCycle(diamond)).toBeNull();
  });

  it('refuses duplicate ids, unknown types and bad operators', () => {
    expect(thrown(() => parseSteps([step('a'), step('a')])).param).toBe('steps[1].id');
    expect(thrown(() => parseSteps([{ id: 'a', type: 'wait' }])).param).toBe('steps[0].type');
    const bad = thrown(() =>
      buildTemplate({
        name: 'W',
        type: 'workflow',
        trigger: {
          event: 'voucher.redeemed',
          conditions: [{ field: 'amount', operator: 'approx', value: 1 }],
        },
        steps: [step('a')],
      }),
    );
    expect(bad.param).toBe('trigger.conditions[0].operator');
  });
});

describe('templates by kind', () => {
  it('builds a document template', () => {
    const d = buildTemplate(
      doc({ styling: { brandColor: '#1A73E8', fontSize: 12, fontFamily: 'Georgia, serif' } }),
    );
    expect(d.content).toMatchObject({ type: 'invoice', format: 'html', styling: { brandColor: '#1A73E8' } });
  });

  it('names the undeclared placeholder of any text field', () => {
    const err = thrown(() => buildTemplate(doc({ template: 'Hi {{customer}} {{due_date}}' })));
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'template' });
    expect(err.message).toContain('due_date');
    const email = thrown(() =>
      buildTemplate({ name: 'E', type: 'email', subject: 'Hi {{who}}', body: 'x', variables: [] }),
    );
    expect(email.param).toBe('subject');
    const wf = thrown(() =>
      buildTemplate({
        name: 'W',
        type: 'workflow',
        trigger: { event: 'voucher.redeemed' },
        steps: [{ id: 'a', type: 'notification', config: { message: 'Order {{orderId}}' } }],
      }),
    );
    expect(wf.param).toBe('steps[0].config.message');
  });

  it('refuses fields of another kind and bad styling', () => {
    expect(thrown(() => buildTemplate(doc({ subject: 'x' }))).param).toBe('subject');
    expect(thrown(() => buildTemplate(doc({ format: 'odt' }))).param).toBe('format');
    expect(thrown(() => buildTemplate(doc({ styling: { brandColor: 'red' } }))).param).toBe(
      'styling.brandColor',
    );
    expect(thrown(() => buildTemplate(doc({ styling: { fontFamily: 'x;}body{' } }))).param).toBe(
      'styling.fontFamily',
    );
    expect(thrown(() => buildTemplate({ name: 'E', type: 'email', body: 'b' })).code).toBe(
      'parameter_missing',
    );
  });

  it('patches: reports changed fields, refuses a change of kind, no-op changes nothing', () => {
    const current = buildTemplate(doc());
    const { changed, next } = applyPatch(current, { name: 'Invoice v2', type: 'receipt' });
    expect(changed.sort()).toEqual(['name', 'type']);
    expect(next.content.template).toBe(current.content.template);
    expect(applyPatch(current, { name: 'Invoice' }).changed).toEqual([]);
    expect(thrown(() => applyPatch(current, { type: 'email' })).param).toBe('type');
    // Removing a variable still used by the template is refused.
    expect(
      thrown(() => applyPatch(current, { variables: [{ name: 'customer', type: 'string' }] })).message,
    ).toContain('{{total}}');
  });
});

describe('access', () => {
  it('owner has all; any grant reads; others see nothing', () => {
    expect(effectiveAccess('user_a', 'user_a', [])).toEqual(['read', 'write', 'delete']);
    expect(effectiveAccess('user_a', 'user_b', ['write'])).toEqual(['read', 'write']);
    expect(effectiveAccess('user_a', 'user_b', [])).toEqual([]);
    expect(thrown(() => requireAccess('tmpl_x', [], 'read')).code).toBe('resource_not_found');
    expect(thrown(() => requireAccess('tmpl_x', ['read'], 'delete')).code).toBe('insufficient_permissions');
  });
});
