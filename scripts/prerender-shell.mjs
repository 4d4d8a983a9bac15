// After the renderer's build: the shell's static markup (renderer/src/shell-markup.tsx, built for
// Node by Vite and rendered here) goes into dist/index.html, and the boot script
// (renderer/src/boot.ts, a classic script so it runs before the first paint) into dist/boot.js.
// The first paint then needs the HTML and the stylesheet, not the app's script.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const renderer = join(root, 'renderer');
const dist = join(renderer, 'dist');
const common = {
  configFile: false,
  root: renderer,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  define: { 'process.env.NODE_ENV': '"production"' },
};

const ssrOut = join(root, 'build', 'prerender');
await build({
  ...common,
  build: { ssr: 'src/shell-markup.tsx', outDir: ssrOut, emptyOutDir: true, target: 'node20' },
});
const { shellMarkup } = await import(pathToFileURL(join(ssrOut, 'shell-markup.mjs')).href);
rmSync(ssrOut, { recursive: true });

await build({
  ...common,
  build: {
    outDir: dist,
    emptyOutDir: false,
    target: 'es2022',
    lib: { entry: 'src/boot.ts', formats: ['iife'], name: 'svcBoot', fileName: () => 'boot.js' },
  },
});

const indexPath = join(dist, 'index.html');
const html = readFileSync(indexPath, 'utf8');
const root_ = '<div id="root"></div>';
if (!html.includes(root_) || !html.includes('<title>'))
  throw new Error(`${indexPath}: no empty #root to fill`);
writeFileSync(
  indexPath,
  html
    .replace('<title>', '<script src="/boot.js"></script>\n    <title>')
    .replace(root_, `<div id="root">${shellMarkup()}</div>`),
);
