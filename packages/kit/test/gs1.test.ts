// GS1 identifiers (kit/gs1.ts): the mod-10 check digit on GS1's own examples, GTIN
// normalisation to 14 digits, the serial's character set 82 and length, and the Digital Link
// path with its percent-encoding.
import { describe, expect, it } from '@jest/globals';
import {
  digitalLinkPath,
  encodeDigitalLinkSegment,
  gs1CheckDigit,
  normaliseGtin,
  serialProblem,
} from '../src/gs1.js';

describe('GS1 check digit', () => {
  it("computes GS1's worked examples (GenSpecs §7.9.1 and the Digital Link standard's GTIN)", () => {
    expect(gs1CheckDigit('629104150021')).toBe(3); // GenSpecs: GTIN-13 629104150021|3
    expect(gs1CheckDigit('0950600013435')).toBe(2); // Digital Link examples: 09506000134352
    expect(gs1CheckDigit('9638507')).toBe(4); // EAN-8 96385074
    expect(gs1CheckDigit('03600029145')).toBe(2); // UPC-A (GTIN-12) 036000291452
  });
});

describe('normaliseGtin', () => {
  it('accepts GTIN-8, -12, -13 and -14 with a correct check digit, left-padded to 14 digits', () => {
    expect(normaliseGtin('96385074')).toEqual({ gtin: '00000096385074' });
    expect(normaliseGtin('036000291452')).toEqual({ gtin: '00036000291452' });
    expect(normaliseGtin('9506000134352')).toEqual({ gtin: '09506000134352' });
    expect(normaliseGtin('09506000134352')).toEqual({ gtin: '09506000134352' });
    expect(normaliseGtin('6291041500213')).toEqual({ gtin: '06291041500213' });
  });

  it('refuses non-digits, other lengths and a wrong check digit, saying which', () => {
    expect(normaliseGtin('0950600013435X')).toEqual({ problem: expect.stringContaining('digits only') });
    expect(normaliseGtin(' 9506000134352')).toEqual({ problem: expect.stringContaining('digits only') });
    expect(normaliseGtin('950600013435')).toEqual({ problem: expect.stringContaining('check digit') });
    expect(normaliseGtin('1234567890')).toEqual({ problem: expect.stringContaining('10 digits') });
    expect(normaliseGtin('095060001343520')).toEqual({ problem: expect.stringContaining('15 digits') });
    expect(normaliseGtin('09506000134353')).toEqual({
      problem: 'has a wrong check digit (expected 2 for 0950600013435)',
    });
  });
});

describe('serialProblem (AI 21: 1–20 characters of GS1 CSET 82)', () => {
  it('accepts every CSET 82 character', () => {
    expect(serialProblem('ABCxyz0189')).toBeNull();
    expect(serialProblem(`!"%&'()*+,-./:;<=>?_`)).toBeNull();
    expect(serialProblem('x'.repeat(20))).toBeNull();
  });

  it('refuses the empty serial, more than 20 characters, and characters outside CSET 82', () => {
    expect(serialProblem('')).toContain('empty');
    expect(serialProblem('x'.repeat(21))).toContain('20 characters');
    for (const bad of [
      'a b',
      'a#b',
      'a~b',
      'a@b',
      'a[b',
      'a\\b',
      'a^b',
      'a`b',
      'a{b',
      'a|b',
      'é',
      'a\nb',
      '€',
    ])
      expect([bad, serialProblem(bad)]).toEqual([bad, expect.stringContaining('character set 82')]);
  });
});

describe('Digital Link path', () => {
  it('percent-encodes every character of a serial outside the unreserved set, and decodes back', () => {
    expect(encodeDigitalLinkSegment('AB-12.x_y')).toBe('AB-12.x_y');
    expect(encodeDigitalLinkSegment('A/1%?&#')).toBe('A%2F1%25%3F%26%23');
    const all = `!"%&'()*+,-./:;<=>?_Az9`;
    expect(decodeURIComponent(encodeDigitalLinkSegment(all))).toBe(all);
    expect(encodeDigitalLinkSegment(all)).toMatch(/^[A-Za-z0-9\-._%]+$/);
  });

  it('is /01/<gtin14>/21/<serial, encoded>', () => {
    expect(digitalLinkPath('09506000134352', 'ABC/1')).toBe('/01/09506000134352/21/ABC%2F1');
  });
});
