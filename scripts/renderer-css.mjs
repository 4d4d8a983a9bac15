// One design system: each selector of the renderer is styled in one sheet only, so no rule wins
// by the order sheets happen to load in, and a sheet never writes the same rule twice. The kit's
// sheets are in renderer/src/app/ui (ui.css imports them in order), each screen's beside it.
// `node scripts/renderer-css.mjs` lists what breaks this and exits 1; npm run lint runs it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Splits a selector list at its top-level commas (not those inside `:not(a, b)`). */
function splitSelectors(list) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '(') depth++;
    else if (list[i] === ')') depth--;
    else if (list[i] === ',' && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out.map((s) =>
    s
      .trim()
      .replace(/\s+/g, ' ')
      .replace(/\s*([>+~])\s*/g, ' $1 ')
      .replace(/"/g, "'"),
  );
}

/**
 * The style rules of a sheet: each rule's selectors and the at-rules around it ('' at the top,
 * '@media (max-width: 1279px)' inside one). Keyframes are not selectors and are left out.
 */
export function rulesOf(css) {
  const rules = [];
  const walk = (text, context) => {
    let i = 0;
    while (i < text.length) {
      const open = text.indexOf('{', i);
      if (open < 0) return;
      // Statements before the rule (@import, @charset) end with a semicolon.
      const prelude = text
        .slice(i, open)
        .replace(/@[a-z-]+[^;{}]*;/g, '')
        .trim();
      let depth = 1;
      let end = open + 1;
      for (; end < text.length && depth > 0; end++) {
        if (text[end] === '{') depth++;
        else if (text[end] === '}') depth--;
      }
      const body = text.slice(open + 1, end - 1);
      if (prelude.startsWith('@')) {
        if (!/^@(-[a-z]+-)?keyframes/.test(prelude)) walk(body, `${context}${prelude.replace(/\s+/g, ' ')} `);
      } else rules.push({ context: context.trim(), selectors: splitSelectors(prelude) });
      i = end;
    }
  };
  walk(css.replace(/\/\*[\s\S]*?\*\//g, ''), '');
  return rules;
}

/** What breaks the rule in these sheets ({path: text}): one line per problem, none if all is well. */
export function restyled(sheets) {
  const problems = [];
  const owner = new Map(); // context + selector -> the sheet that styles it
  for (const [path, css] of Object.entries(sheets)) {
    const lists = new Set();
    for (const { context, selectors } of rulesOf(css)) {
      const where = context ? ` (in ${context})` : '';
      const list = `${context}\n${selectors.join(', ')}`;
      if (lists.has(list))
        problems.push(`${path}: ${selectors.join(', ')}${where} is written twice: merge them`);
      lists.add(list);
      for (const selector of selectors) {
        const key = `${context}\n${selector}`;
        const first = owner.get(key);
        if (first === undefined) owner.set(key, path);
        else if (first !== path)
          problems.push(`${path}: ${selector}${where} is already styled in ${first}: style it in one sheet`);
      }
    }
  }
  return [...new Set(problems)];
}

/** Every sheet under renderer/src, keyed by its path from the repository's root. */
export function rendererSheets(dir = join(root, 'renderer', 'src')) {
  const sheets = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.css')) continue;
    const path = join(entry.parentPath, entry.name);
    sheets[relative(root, path)] = readFileSync(path, 'utf8');
  }
  return sheets;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = restyled(rendererSheets());
  for (const p of problems) process.stderr.write(`${p}\n`);
  process.exit(problems.length ? 1 : 0);
}
