/** Running the build's tools (apt, dpkg-deb, npm, git): output captured, a failure says what failed and what the tool said. */
import { execFile } from 'node:child_process';

export interface Ran {
  readonly stdout: Buffer;
  readonly stderr: string;
}

export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...options, encoding: 'buffer', maxBuffer: 1 << 30 }, (error, stdout, stderr) => {
      if (error === null) {
        resolve({ stdout, stderr: stderr.toString() });
        return;
      }
      const said = stderr.toString().trim() || stdout.toString().trim();
      const why =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'not found on PATH'
          : `failed (${error.message.split('\n')[0] ?? ''})`;
      reject(new Error(`${command} ${args.join(' ')} ${why}${said === '' ? '' : `:\n${said}`}`));
    });
  });
}
