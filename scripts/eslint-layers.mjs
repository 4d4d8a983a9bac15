// The layering rule: every source folder names what it may import (an allow-list), and any
// import outside that list is an error. docs/ARCHITECTURE.md explains the layers.
//
// A layer is { files, allow, tests? }:
// - files: globs of the files in the layer (the first layer whose globs match a file wins, so
//   narrower layers come first);
// - allow: globs of what those files may import: repository paths ('daemon/api/**') for
//   relative imports, package names ('ws', '@grpc/*', 'node:*') for the others; a 'type:'
//   prefix allows only `import type`;
// - tests: more globs test files (*.test.ts, testing/ folders) of the layer may import;
// - deny: globs refused for value imports even where `allow` matches them (a narrower rule
//   inside a wide allowance: HTTP modules in folders that must leave it to another one), each
//   with the reason the error gives.
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** A glob as a regular expression: `**` any path, `*` one path segment's characters. */
function globRegExp(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `a/**` also matches `a` itself.
      if (out.endsWith('/')) out = `${out.slice(0, -1)}(?:/.*)?`;
      else out += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') out += '[^/]*';
    else out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

const matcher = (globs) => {
  const res = globs.map(globRegExp);
  return (path) => res.some((re) => re.test(path));
};

const isTestFile = (path) => /\.test\.tsx?$|(^|\/)testing\/|test-support\.ts$|test-fixtures\.ts$/.test(path);

/** What an import names, as the allow-lists spell it: a repository path or a package name. */
function importTarget(file, specifier) {
  if (specifier.startsWith('.')) {
    const path = normalize(join(dirname(file), specifier));
    return { path: path.replace(/\.(m?js|tsx?)$/, ''), relative: true };
  }
  if (specifier.startsWith('node:')) return { path: specifier.split('/')[0], relative: false };
  const parts = specifier.split('/');
  return { path: specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0], relative: false };
}

function compile(layers) {
  return layers.map((layer) => {
    const entries = [...layer.allow];
    const tests = layer.tests ?? [];
    const split = (list) => ({
      any: matcher(list.filter((g) => !g.startsWith('type:'))),
      typeOnly: matcher(list.filter((g) => g.startsWith('type:')).map((g) => g.slice(5))),
    });
    return {
      name: layer.files.join(', '),
      files: matcher(layer.files),
      main: split(entries),
      tests: split(tests),
      deny: (layer.deny ?? []).map((d) => ({ match: matcher(d.globs), why: d.why })),
    };
  });
}

const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'each folder imports only what its layer allows' },
    schema: [{ type: 'array' }],
    messages: {
      notAllowed: '{{file}} (layer {{layer}}) may not import {{target}}',
      denied: '{{file}} (layer {{layer}}) may not import {{target}}: {{why}}',
      noLayer: '{{file}} belongs to no layer: add it to the layers in eslint.config.mjs',
    },
  },
  create(context) {
    const layers = compile(context.options[0] ?? []);
    const file = relative(root, context.filename);
    const layer = layers.find((l) => l.files(file));
    const test = isTestFile(file);
    const check = (node, specifier, typeOnly) => {
      if (typeof specifier !== 'string') return;
      if (!layer) {
        context.report({ node, messageId: 'noLayer', data: { file } });
        return;
      }
      const target = importTarget(file, specifier).path;
      // Tests may speak HTTP themselves (to check what a server answers); the modules may not.
      const denied = typeOnly || test ? undefined : layer.deny.find((d) => d.match(target));
      if (denied) {
        context.report({
          node,
          messageId: 'denied',
          data: { file, layer: layer.name, target, why: denied.why },
        });
        return;
      }
      const allowedBy = (lists) => lists.any(target) || (typeOnly && lists.typeOnly(target));
      if (allowedBy(layer.main) || (test && allowedBy(layer.tests))) return;
      context.report({ node, messageId: 'notAllowed', data: { file, layer: layer.name, target } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value, node.importKind === 'type'),
      ExportNamedDeclaration: (node) =>
        node.source && check(node, node.source.value, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
    };
  },
};

export const layersPlugin = { rules: { 'allowed-imports': allowedImports } };
