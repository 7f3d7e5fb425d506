import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built by the root `npm run build` into dist/portal; the API serves it at /portal/ (hashed assets
// with a year's cache, index.html never cached) under a strict Content-Security-Policy: no inline
// scripts or styles, nothing from another origin.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/portal/',
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('../dist/portal', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
