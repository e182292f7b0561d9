/**
 * The operator as the image and the chart run it: one ES module bundled from operator/main.ts,
 * started with the chart's Node.js flags and malloc arena cap. Loaded from its sources, the
 * operator holds @kubernetes/client-node's whole generated layer (the request, Observable and
 * object classes of every API group: about 14 MB of source text that V8 keeps for lazy
 * compilation) and the WebAssembly compiler behind type stripping, which stays resident once
 * loaded; bundled and tree-shaken, only the API classes it constructs remain.
 * docs/decisions/2026-11-24-operator-memory.md has the figures. The code is not minified, so
 * stack traces keep names and readable lines; only comments other than licences are dropped.
 * Tests run the sources, and test/integration/operator-bundle.test.ts runs the bundle.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { build } from 'rolldown';

const root = join(import.meta.dirname, '..');

/** Where the image keeps the bundle, relative to its working directory (the chart runs it). */
export const OPERATOR_BUNDLE = 'dist/operator.mjs';

export async function bundleOperator(file: string): Promise<void> {
  await build({
    input: join(root, 'operator/main.ts'),
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

export interface OperatorLaunch {
  /** Node.js flags before the script (V8's own flags are not allowed in NODE_OPTIONS). */
  readonly flags: readonly string[];
  /** Variables to add to the environment. */
  readonly env: Readonly<Record<string, string>>;
}

/** How the chart starts the operator with its default values (`operator.nodeFlags`, `operator.mallocArenaMax`). */
export function chartOperatorLaunch(): OperatorLaunch {
  const values = load(readFileSync(join(root, 'charts/kubedag/values.yaml'), 'utf8')) as { operator: { nodeFlags: string[]; mallocArenaMax: number } };
  return { flags: values.operator.nodeFlags, env: { MALLOC_ARENA_MAX: String(values.operator.mallocArenaMax) } };
}
