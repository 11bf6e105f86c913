// Fixing a row in place (domain/row-fix.ts): the corrected row passes exactly the upload's
// row rule, so a fix can never let in what an upload refuses. Pure.
import { describe, expect, it } from '@jest/globals';
import { applyFix, cellsOfItem } from '../src/domain/row-fix.js';

const invalid = {
  fields: {
    name: 'Belt',
    description: 'Leather',
    category: 'Belts',
    recipientEmail: 'nope',
    imageUrl: 'https://img.example/b.png',
  },
};

describe('applyFix', () => {
  it('lays the corrected fields over an invalid row’s kept cells and validates the result as an upload row', () => {
    const row = applyFix(
      2,
      cellsOfItem(invalid, { recipientEmail: null, recipientName: null }),
      {
        recipientEmail: 'grace@example.com',
        expiryDays: 30,
        attribute_Color: 'Brown',
      },
      false,
    );
    expect(row).toMatchObject({
      row: 2,
      name: 'Belt',
      recipientEmail: 'grace@example.com',
      imageUrl: 'https://img.example/b.png',
      expiryDays: 30,
      attributes: [{ trait_type: 'Color', value: 'Brown' }],
    });
  });

  it('refuses what the upload refuses, naming the column', () => {
    const cells = cellsOfItem(invalid, { recipientEmail: null, recipientName: null });
    expect(() => applyFix(2, cells, { recipientEmail: 'still nope' }, false)).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'recipientEmail' }),
    );
    expect(() => applyFix(2, cells, { recipientEmail: 'a@b.co', name: '' }, false)).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'name' }),
    );
    expect(() => applyFix(2, cells, { recipientEmail: 'a@b.co', imageUrl: null }, false)).toThrow(
      expect.objectContaining({ param: 'imageUrl' }),
    );
  });

  it('refuses an unknown field, a ZIP file name and a non-scalar value', () => {
    const cells = cellsOfItem(invalid, { recipientEmail: null, recipientName: null });
    expect(() => applyFix(2, cells, { colour: 'red' }, false)).toThrow(
      expect.objectContaining({ code: 'parameter_unknown', param: 'colour' }),
    );
    expect(() => applyFix(2, cells, { imageFile: 'b.png' }, true)).toThrow(
      expect.objectContaining({ param: 'imageFile' }),
    );
    expect(() => applyFix(2, cells, { name: { x: 1 } }, false)).toThrow(
      expect.objectContaining({ param: 'name' }),
    );
  });

  it('starts a failed valid item from its parsed values and contacts', () => {
    const cells = cellsOfItem(
      {
        name: 'Bag',
        description: 'd',
        category: 'c',
        attributes: [{ trait_type: 'Size', value: 'L' }],
        expiryDays: 0,
      },
      { recipientEmail: 'ada@example.com', recipientName: 'Ada' },
    );
    expect(cells).toEqual({
      name: 'Bag',
      description: 'd',
      category: 'c',
      recipientEmail: 'ada@example.com',
      recipientName: 'Ada',
      attribute_Size: 'L',
    });
    expect(applyFix(1, cells, { name: 'Big bag' }, true)).toMatchObject({
      name: 'Big bag',
      recipientName: 'Ada',
    });
  });
});
