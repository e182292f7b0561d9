/**
 * kubedag-step (step/main.ts) as one ES module, for the image and for the local cluster
 * (cluster/step-runner.ts). `node image/step-bundle.ts FILE` writes it. jq's WebAssembly is
 * embedded in jq-wasm's own module, 7-Zip's (7z-wasm, the archive executor) is put inline here
 * and the AWS SDK's lazily loaded modules are inlined, so the bundle needs no files beside it;
 * ssh2's optional
 * native addons are left out (it has JavaScript fallbacks).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, type Plugin } from 'rolldown';

const root = join(import.meta.dirname, '..');

/** jq-wasm's Emscripten loader is CommonJS and asks for __dirname, which an ES module lacks. */
const DIRNAME_SHIM = [
  "import { dirname as __kdDirname } from 'node:path';",
  "import { fileURLToPath as __kdFileURLToPath } from 'node:url';",
  'const __filename = __kdFileURLToPath(import.meta.url);',
  'const __dirname = __kdDirname(__filename);',
].join('\n');

/**
 * step/executors/archive-7zip-wasm.ts reads 7-Zip's WebAssembly from node_modules; in the
 * bundle it carries the bytes itself (base64), as jq-wasm's module does for jq.
 */
function inlineSevenZipWasm(): Plugin {
  const module = join(root, 'step/executors/archive-7zip-wasm.ts');
  return {
    name: 'kubedag-inline-7zip-wasm',
    load(id) {
      if (id !== module) return null;
      const bytes = readFileSync(createRequire(module).resolve('7z-wasm/7zz.wasm')).toString('base64');
      return `export async function sevenZipWasm() { return Buffer.from(${JSON.stringify(bytes)}, 'base64'); }`;
    },
  };
}

/**
 * step/executors/archive-7zip-thread-url.ts names the module a 7-Zip worker thread starts from
 * (archive-7zip-thread-main.ts); the bundle has no such file beside it, so there the thread
 * starts from the bundle itself, whose step/main.ts answers its commands.
 */
function sevenZipThreadFromBundle(): Plugin {
  const module = join(root, 'step/executors/archive-7zip-thread-url.ts');
  return {
    name: 'kubedag-7zip-thread-url',
    load(id) {
      if (id !== module) return null;
      return 'export function sevenZipThreadUrl() { return new URL(import.meta.url); }';
    },
  };
}

export async function bundleStepRunner(file: string): Promise<void> {
  await build({
    input: join(root, 'step/main.ts'),
    platform: 'node',
    // ssh2's optional native addons (faster crypto, CPU feature detection): it falls back to
    // JavaScript when they cannot be loaded, so they stay out of the bundle, which then never
    // depends on whether the machine that built it compiled them.
    external: [/\.node$/],
    logLevel: 'warn',
    plugins: [inlineSevenZipWasm(), sevenZipThreadFromBundle()],
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

if (import.meta.main) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: node image/step-bundle.ts FILE');
  await bundleStepRunner(file);
  console.log(`wrote ${file}`);
}
