// The one-sheet-per-selector check: what it refuses, what it lets through, and the tree as it is.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rendererSheets, restyled, rulesOf } from './renderer-css.mjs';

describe('renderer CSS: each selector styled in one sheet', () => {
  test('a selector styled in two sheets is named with both', () => {
    assert.deepEqual(
      restyled({
        'a.css': '.toolbar { gap: 8px; }',
        'b.css': '/* refines */ .toolbar,\n.other { gap: 12px; }',
      }),
      ['b.css: .toolbar is already styled in a.css: style it in one sheet'],
    );
  });
  test('the same rule written twice in one sheet is refused', () => {
    assert.deepEqual(restyled({ 'a.css': '.sidebar .brand { a: 1 } .x {} .sidebar  .brand { b: 2 }' }), [
      'a.css: .sidebar .brand is written twice: merge them',
    ]);
  });
  test('inside @media a selector is its own; :not(a, b) is one selector', () => {
    const sheets = {
      'a.css': '.shell { x: 1 } .toolbar input:not([type="checkbox"]):not([type="radio"]) { y: 1 }',
      'b.css': "@import './c.css';\n@media (max-width: 1279px) { .shell { x: 2 } }",
    };
    assert.deepEqual(restyled(sheets), []);
    assert.deepEqual(rulesOf(sheets['a.css'])[1].selectors, [
      ".toolbar input:not([type='checkbox']):not([type='radio'])",
    ]);
    assert.deepEqual(rulesOf(sheets['b.css']), [
      { context: '@media (max-width: 1279px)', selectors: ['.shell'] },
    ]);
  });
  test('keyframes are not selectors', () => {
    assert.deepEqual(restyled({ 'a.css': '@keyframes spin { from { a: 1 } to { a: 2 } } from {}' }), []);
  });
  test("the renderer's sheets pass", () => {
    const sheets = rendererSheets();
    assert.ok(
      Object.keys(sheets).some((p) => p.endsWith('app/ui/ui.css')),
      'the kit is among the sheets read',
    );
    assert.deepEqual(restyled(sheets), []);
  });
});
