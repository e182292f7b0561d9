/**
 * Builds the web UI into dist/ui/, which the API server serves at `/` (apiserver/ui.ts).
 * `make ui-dev` runs Vite's dev server instead, proxying `/api` to a running API server: the
 * one at KUBEDAG_API_PORT, else the one the `make dev` stack in KUBEDAG_DEV_DIR (or .dev)
 * recorded in its dev.json, else port 8080.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

function devStackApi(): string | undefined {
  const dir =
    process.env.KUBEDAG_DEV_DIR === undefined || process.env.KUBEDAG_DEV_DIR === ''
      ? join(import.meta.dirname, '..', '.dev')
      : resolve(process.env.KUBEDAG_DEV_DIR);
  try {
    return (JSON.parse(readFileSync(join(dir, 'dev.json'), 'utf8')) as { api?: string }).api;
  } catch {
    return undefined;
  }
}

const api =
  process.env.KUBEDAG_API_PORT === undefined || process.env.KUBEDAG_API_PORT === ''
    ? (devStackApi() ?? 'http://127.0.0.1:8080')
    : `http://127.0.0.1:${process.env.KUBEDAG_API_PORT}`;

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: '../dist/ui',
    // The output folder is outside the root; Vite only empties it when told to.
    emptyOutDir: true,
    // Every asset a file of its own, so the Content-Security-Policy needs no data: URLs.
    assetsInlineLimit: 0,
    target: 'es2023',
    // The spec editor (CodeMirror, the compiled DAG schema) is one lazily loaded chunk of about
    // 1 MB (210 kB gzipped), fetched only when a spec is opened; the rest stays small.
    chunkSizeWarningLimit: 1200,
  },
  server: {
    proxy: { '/api': api },
  },
});
