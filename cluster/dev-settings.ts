/**
 * Where a `make dev` stack keeps its state and which ports its operator and API server take,
 * from flags and variables (flags win). Several stacks run side by side: each in its own
 * directory (`--dir`, `KUBEDAG_DEV_DIR`; default `.dev` in the repository), the control plane
 * and node agents on free ports always, the API server and operator on the ports asked for
 * or, when none is, on 8080 and 8081 while those are free and on free ports otherwise.
 */
import { isAbsolute, join, resolve } from 'node:path';

/** A port given by the person (used as is: taken means a clear failure) or a preference. */
export type PortChoice = { readonly given: number } | { readonly preferred: number };

export interface DevSettings {
  readonly dir: string;
  readonly apiPort: PortChoice;
  readonly operatorPort: PortChoice;
  /** Only the summary on the console (ready, components that end), not the components' logs. */
  readonly quiet: boolean;
}

export interface DevFlags {
  readonly dir?: string;
  readonly 'api-port'?: string;
  readonly 'operator-port'?: string;
  readonly quiet?: boolean;
}

export const DEFAULT_API_PORT = 8080;
export const DEFAULT_OPERATOR_PORT = 8081;

function port(text: string | undefined, name: string, preferred: number): PortChoice {
  if (text === undefined || text === '') return { preferred };
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) throw new Error(`${name} must be a port number from 1 to 65535, not "${text}"`);
  return { given: value };
}

/** `root` is the repository; a relative directory is taken from `cwd`. */
export function parseDevSettings(flags: DevFlags, env: Readonly<Record<string, string | undefined>>, root: string, cwd: string): DevSettings {
  const dir = flags.dir ?? (env.KUBEDAG_DEV_DIR === '' ? undefined : env.KUBEDAG_DEV_DIR);
  return {
    dir: dir === undefined ? join(root, '.dev') : isAbsolute(dir) ? dir : resolve(cwd, dir),
    apiPort: port(flags['api-port'] ?? env.KUBEDAG_API_PORT, '--api-port (KUBEDAG_API_PORT)', DEFAULT_API_PORT),
    operatorPort: port(flags['operator-port'] ?? env.KUBEDAG_OPERATOR_PORT, '--operator-port (KUBEDAG_OPERATOR_PORT)', DEFAULT_OPERATOR_PORT),
    quiet: flags.quiet ?? ['1', 'true', 'yes'].includes((env.KUBEDAG_DEV_QUIET ?? '').toLowerCase()),
  };
}

/**
 * The port to use: a given one as is; a preferred one while it is free (the README's
 * addresses keep working for the first stack), else `free`, one the system just handed out.
 */
export function choosePort(choice: PortChoice, preferredIsFree: boolean, free: number): number {
  if ('given' in choice) return choice.given;
  return preferredIsFree ? choice.preferred : free;
}

export interface DevPrograms {
  readonly kubeconfig: string;
  /** Where the operator keeps step logs. */
  readonly logDir: string;
  readonly operatorPort: number;
  readonly apiPort: number;
}

/**
 * The operator's and the API server's arguments as `make dev` runs them. The API fuzz stack's
 * `dev` profile (test/fuzz/stack.ts) runs them with these too, so that what schemathesis finds
 * there is what a `make dev` user meets. Pure.
 */
export function devProgramArgs(at: DevPrograms): { readonly operator: string[]; readonly apiserver: string[] } {
  return {
    operator: [`--kubeconfig=${at.kubeconfig}`, `--log-dir=${at.logDir}`, '--lease-duration-seconds=5', '--log-format=pretty', `--http-port=${String(at.operatorPort)}`],
    // The API server serves the kubeconfig's namespace ("default" for make dev's cluster).
    apiserver: [`--kubeconfig=${at.kubeconfig}`, `--operator-url=http://127.0.0.1:${String(at.operatorPort)}`, '--log-format=pretty', '--host=127.0.0.1', `--port=${String(at.apiPort)}`],
  };
}
