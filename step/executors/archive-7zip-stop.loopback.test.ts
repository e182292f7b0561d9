/**
 * A stop ends a 7-Zip extraction at once. 7-Zip's WebAssembly does not return until its
 * command ends, so it runs in a worker thread that a stop terminates (archive-7zip.ts): the
 * runner, a real process here, is stopped with SIGTERM while 7-Zip decompresses a tar.bz2 that
 * holds 2 GiB of zeros (a 1.6 KB fixture, test/fixtures/archive/README.md), and must exit as a
 * stopped step does, long before that file could be written, leaving no scratch folder behind.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_ENV, type ExecutorSpec } from '../../core/runner/spec.ts';
import { temporaryDir } from '../../test/step-io.ts';

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/archive/zeros-2gib.tar.bz2');

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await temporaryDir('archive-7zip-stop');
  await mkdir(join(dir.path, 'work'));
  await mkdir(join(dir.path, 'tmp'));
  await copyFile(FIXTURE, join(dir.path, 'work/zeros.tar.bz2'));
});
afterAll(async () => {
  await dir.remove();
});

/** The bytes 7-Zip has written so far into the step's scratch folders (under the runner's TMPDIR). */
async function scratchBytes(): Promise<{ folders: number; bytes: number }> {
  const tmp = join(dir.path, 'tmp');
  const folders = (await readdir(tmp)).filter((name) => name.startsWith('kubedag-archive-'));
  let bytes = 0;
  for (const folder of folders)
    for (const file of await readdir(join(tmp, folder)).catch(() => []))
      bytes += await stat(join(tmp, folder, file)).then(
        (s) => s.size,
        () => 0,
      );
  return { folders: folders.length, bytes };
}

describe('kubedag-step archive.extract through 7-Zip, stopped by SIGTERM', () => {
  it('ends promptly with the stop status while 7-Zip is still decompressing, and removes its scratch folder', async () => {
    const spec: ExecutorSpec = {
      type: 'archive',
      command: 'extract',
      config: { source: 'zeros.tar.bz2', destination: 'out' },
    };
    const child = spawn(process.execPath, [resolve(import.meta.dirname, '../main.ts'), 'executor'], {
      cwd: join(dir.path, 'work'),
      env: { ...process.env, TMPDIR: join(dir.path, 'tmp'), [EXECUTOR_ENV]: JSON.stringify(spec) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const err: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const done = new Promise<number | null>((finish) => child.on('close', finish));
    const state = { exited: false };
    void done.then(() => {
      state.exited = true;
    });

    // 7-Zip is at work once the decompressed tar grows in the scratch folder.
    let written = 0;
    for (let tries = 0; written === 0 && !state.exited && tries < 600; tries++) {
      await new Promise((wait) => setTimeout(wait, 100));
      written = (await scratchBytes()).bytes;
    }
    expect([state.exited, written > 0]).toEqual([false, true]);
    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    const code = await done;
    const took = Date.now() - stoppedAt;

    expect([code, Buffer.concat(err).toString('utf8')]).toEqual([143, 'kubedag-step: stopped\n']);
    // Writing the rest of the 2 GiB takes 7-Zip far longer than this; a stop it cannot see waits for all of it.
    expect(took).toBeLessThan(5_000);
    expect(await scratchBytes()).toEqual({ folders: 0, bytes: 0 });
  }, 90_000);
});
