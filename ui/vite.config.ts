/**
 * Builds the web UI into dist/ui/, which the API server serves at `/` (apiserver/ui.ts).
 * `make ui-dev` runs Vite's dev server instead, proxying `/api` to a running API server.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiPort = process.env.KUBEDAG_API_PORT ?? '8080';

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
    proxy: { '/api': `http://127.0.0.1:${apiPort}` },
  },
});
