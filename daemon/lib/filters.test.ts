import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFilterKeys, labelMatches } from './filters';

test('unknown filter keys are refused by name', () => {
  const filters = new Map([
    ['label', ['a']],
    ['colour', ['red']],
  ]);
  assert.throws(() => checkFilterKeys(filters, ['label']), /invalid filter 'colour'/);
  assert.doesNotThrow(() => checkFilterKeys(new Map([['label', []]]), ['label', 'until']));
});

test('a label filter matches a set key, or a key set to a value', () => {
  const labels = { tier: 'web', empty: '', 'a=b': 'no' };
  assert.equal(labelMatches(labels, 'tier'), true);
  assert.equal(labelMatches(labels, 'tier=web'), true);
  assert.equal(labelMatches(labels, 'tier=db'), false);
  assert.equal(labelMatches(labels, 'empty='), true);
  assert.equal(labelMatches(labels, 'missing'), false);
  // The first '=' splits key from value, as Docker's filters do.
  assert.equal(labelMatches({ a: 'b=c' }, 'a=b=c'), true);
});
