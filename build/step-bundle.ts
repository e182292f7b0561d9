/**
 * kubedag-step (step/main.ts) as ES modules, for the image and for the local cluster
 * (cluster/step-runner.ts). `node build/step-bundle.ts FILE` writes it, and beside it the
 * 7-Zip worker thread's own bundle (SEVEN_ZIP_THREAD_BUNDLE), so a 7-Zip step's thread loads
 * 7-Zip alone, not the whole runner again. jq's WebAssembly is embedded in jq-wasm's own module,
 * 7-Zip's (7z-wasm, the archive executor) is put inline here and the AWS SDK's lazily loaded
 * modules are inlined, so the bundles need no files beside them but each other; ssh2's optional
 * native addons are left out (it has JavaScript fallbacks).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'rolldown';

const root = join(import.meta.dirname, '..');

/** The 7-Zip thread's bundle, a file beside the runner's whatever the runner's is named. */
export const SEVEN_ZIP_THREAD_BUNDLE = 'kubedag-7zip-thread.mjs';

/** jq-wasm's Emscripten loader is CommonJS and asks for __dirname, which an ES module lacks. */
const DIRNAME_SHIM = [
  "import { dirname as __kdDirname } from 'node:path';",
  "import { fileURLToPath as __kdFileURLToPath } from 'node:url';",
  'const __filename = __kdFileURLToPath(import.meta.url);',
  'const __dirname = __kdDirname(__filename);',
].join('\n');

/** A plugin that gives the module at `path` (from the repository's root) the source `source()` returns instead of its own. */
export function replaceModule(path: string, source: () => string): Plugin {
  const module = join(root, path);
  return {
    name: `kubedag-replace:${path}`,
    load(id) {
      return id === module ? source() : null;
    },
  };
}

/**
 * step/executors/archive-7zip-wasm.ts reads 7-Zip's WebAssembly from node_modules; in the
 * bundle it carries the bytes itself (base64), as jq-wasm's module does for jq.
 */
const inlineSevenZipWasm = (): Plugin =>
  replaceModule('step/executors/archive-7zip-wasm.ts', () => {
    const wasm = createRequire(join(root, 'step/executors/')).resolve('7z-wasm/7zz.wasm');
    const bytes = readFileSync(wasm).toString('base64');
    return `export async function sevenZipWasm() { return Buffer.from(${JSON.stringify(bytes)}, 'base64'); }`;
  });

/**
 * step/executors/archive-7zip-thread-url.ts names the module a 7-Zip worker thread starts from
 * (archive-7zip-thread-main.ts); in the bundle, that module's own bundle beside the runner's.
 */
const sevenZipThreadBesideBundle = (): Plugin =>
  replaceModule(
    'step/executors/archive-7zip-thread-url.ts',
    () => `export function sevenZipThreadUrl() { return new URL('./${SEVEN_ZIP_THREAD_BUNDLE}', import.meta.url); }`,
  );

async function bundle(entry: string, file: string, plugins: Plugin[]): Promise<void> {
  await build({
    input: join(root, entry),
    platform: 'node',
    // ssh2's optional native addons (faster crypto, CPU feature detection): it falls back to
    // JavaScript when they cannot be loaded, so they stay out of the bundle, which then never
    // depends on whether the machine that built it compiled them.
    external: [/\.node$/],
    logLevel: 'warn',
    plugins,
    output: {
      file,
      format: 'esm',
      banner: DIRNAME_SHIM,
      comments: { legal: true, annotation: false, jsdoc: false },
      // The AWS SDK (the s3 executor) loads its credential providers with dynamic imports:
      // they go into the one file too, which needs nothing beside it.
      codeSplitting: false,
    },
  });
}

/** Writes the runner's bundle to `file` and the 7-Zip thread's beside it; answers both paths. */
export async function bundleStepRunner(file: string): Promise<string[]> {
  const thread = join(dirname(file), SEVEN_ZIP_THREAD_BUNDLE);
  // Two builds, not two inputs of one: one input per build keeps each a single file with
  // nothing shared between them (rolldown would split what both import into a third chunk).
  await bundle('step/main.ts', file, [sevenZipThreadBesideBundle()]);
  await bundle('step/executors/archive-7zip-thread-main.ts', thread, [inlineSevenZipWasm()]);
  return [file, thread];
}

if (import.meta.main) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: node build/step-bundle.ts FILE');
  for (const written of await bundleStepRunner(file)) console.log(`wrote ${written}`);
}
