// The renderer build: plain Vite (TSX through its built-in transform), output renderer/dist,
// which the gateway serves for web mode and for Electron's window.
import { defineConfig } from 'vite';

const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

export default defineConfig({
  root: here,
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // What the first screen needs in one chunk, each other screen in its own: the first
        // paint waits for one script, not for a request per module the screens share.
        codeSplitting: { groups: [{ name: 'shell', tags: ['$initial'] }] },
      },
      // react-query marks its modules "use client" for server-component bundlers; moot here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
