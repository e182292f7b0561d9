/**
 * The bytes of 7-Zip's WebAssembly (the npm package 7z-wasm), read from the package beside its
 * loader. The step runner's bundle (build/step-bundle.ts) replaces this module with one that
 * carries the bytes inline, so the bundle still needs no file beside it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

export async function sevenZipWasm(): Promise<Uint8Array> {
  return readFile(createRequire(import.meta.url).resolve('7z-wasm/7zz.wasm'));
}
