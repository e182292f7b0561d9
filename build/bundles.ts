/**
 * The operator and the API server as the image and the chart run them: each one ES module
 * bundled from its main.ts, started with the chart's Node.js flags and malloc arena cap.
 * Loaded from their sources, both hold @kubernetes/client-node's whole generated layer (the
 * request, Observable and object classes of every API group: about 14 MB of source text that V8
 * keeps for lazy compilation) and the WebAssembly compiler behind type stripping, which stays
 * resident once loaded; bundled and tree-shaken, only the API classes they construct remain.
 * docs/decisions/2026-11-24-operator-memory.md has the operator's figures,
 * docs/decisions/2026-11-29-api-server-memory.md the API server's. The code is not minified, so
 * stack traces keep names and readable lines; only comments other than licences are dropped.
 * Tests run the sources; test/integration/operator-bundle.test.ts runs the operator's bundle and
 * test/integration/image.test.ts both, as the chart starts them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { build } from 'rolldown';

const root = join(import.meta.dirname, '..');

/** Where the image keeps the bundles, relative to its working directory (the chart runs them). */
export const OPERATOR_BUNDLE = 'dist/operator.mjs';
export const API_SERVER_BUNDLE = 'dist/apiserver.mjs';

async function bundle(entry: string, file: string): Promise<void> {
  await build({
    input: join(root, entry),
    platform: 'node',
    logLevel: 'warn',
    // The AWS SDK of the S3 log store stays out: imported only when that store is chosen
    // (operator/logs/open.ts), from the node_modules beside the bundle (the image installs the
    // production dependencies). Bundled in, even wrapped to be evaluated on first import, it
    // cost the directory store's operator 13 MiB of RSS (docs/decisions/2026-11-24-s3-logs.md).
    external: [/^@aws-sdk\//],
    // One file: the S3 store's own module is small and evaluated when imported.
    output: { file, format: 'esm', codeSplitting: false, comments: { legal: true, annotation: false, jsdoc: false } },
  });
}

export async function bundleOperator(file: string): Promise<void> {
  await bundle('operator/main.ts', file);
}

/**
 * The API server finds package.json and the web UI (`--ui-dir`'s default) from its own folder:
 * `../package.json` and `../dist/ui`, the same from apiserver/ and from dist/. So its bundle
 * must be a file directly in dist/ (any name), as in the image.
 */
export async function bundleApiServer(file: string): Promise<void> {
  await bundle('apiserver/main.ts', file);
}

export interface ChartLaunch {
  /** Node.js flags before the script (V8's own flags are not allowed in NODE_OPTIONS). */
  readonly flags: readonly string[];
  /** Variables to add to the environment. */
  readonly env: Readonly<Record<string, string>>;
}

/** How the chart starts a component with its default values (`<component>.nodeFlags`, `<component>.mallocArenaMax`). */
export function chartLaunch(component: 'operator' | 'apiServer'): ChartLaunch {
  const values = load(readFileSync(join(root, 'charts/kubedag/values.yaml'), 'utf8')) as Record<
    typeof component,
    { nodeFlags: string[]; mallocArenaMax: number }
  >;
  const { nodeFlags, mallocArenaMax } = values[component];
  return { flags: nodeFlags, env: { MALLOC_ARENA_MAX: String(mallocArenaMax) } };
}

export function chartOperatorLaunch(): ChartLaunch {
  return chartLaunch('operator');
}
