/**
 * Where a `make dev` stack keeps its state and which ports its operator and API server take,
 * from flags and variables (flags win). Several stacks run side by side: each in its own
 * directory (`--dir`, `KUBEDAG_DEV_DIR`; default `.dev` in the repository), the control plane
 * and node agents on free ports always, the API server and operator on the ports asked for
 * or, when none is, on 8080 and 8081 while those are free and on free ports otherwise.
 */
import { isAbsolute, join, resolve } from 'node:path';
import {
  resolveSettings,
  setting,
  type Env,
  type FlagValues,
  type Setting,
  type SettingName,
} from '../core/settings.ts';

/** A port given by the person (used as is: taken means a clear failure) or a preference. */
export type PortChoice = { readonly given: number } | { readonly preferred: number };

export interface DevSettings {
  readonly dir: string;
  readonly apiPort: PortChoice;
  readonly operatorPort: PortChoice;
  /** Only the summary on the console (ready, components that end), not the components' logs. */
  readonly quiet: boolean;
}

// Types, not interfaces: they stand where a table (core/settings.ts) or its flags are expected,
// which an interface, closed to index signatures, could not.
export type DevFlags = {
  readonly dir?: string;
  readonly 'api-port'?: string;
  readonly 'operator-port'?: string;
  readonly quiet?: boolean;
};

export type DevSettingsTable = {
  readonly dir: Setting<string>;
  readonly apiPort: Setting<PortChoice>;
  readonly operatorPort: Setting<PortChoice>;
  readonly quiet: Setting<boolean>;
};

export const DEFAULT_API_PORT = 8080;
export const DEFAULT_OPERATOR_PORT = 8081;

/** A port given by the person; the preference, when none is, is the setting's default. */
function port(text: string, s: SettingName): PortChoice {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 65_535)
    throw new Error(
      `--${s.flag ?? ''} (${s.variables.join(', ')}) must be a port number from 1 to 65535, not "${text}"`,
    );
  return { given: value };
}

/**
 * The settings of a stack, declared once: parseDevSettings reads them and `node cluster/cli.ts
 * --help` prints them (core/settings.ts). `root` is the repository; a relative directory is
 * taken from `cwd`.
 */
export function devSettingsTable(root: string, cwd: string): DevSettingsTable {
  return {
    dir: setting({
      flag: 'dir',
      variables: ['KUBEDAG_DEV_DIR'],
      value: 'DIR',
      default: join(root, '.dev'),
      defaultText: '.dev in the repository',
      description:
        "The stack's directory (kubeconfig, logs, dev.json); a relative one is taken from where the command runs.",
      read: (text) => (isAbsolute(text) ? text : resolve(cwd, text)),
    }),
    apiPort: setting<PortChoice>({
      flag: 'api-port',
      variables: ['KUBEDAG_API_PORT'],
      value: 'PORT',
      default: { preferred: DEFAULT_API_PORT },
      defaultText: `${String(DEFAULT_API_PORT)} while free, else a free port`,
      description: "The API server's port (dev); a given port is used as given, taken means a clear error.",
      read: port,
    }),
    operatorPort: setting<PortChoice>({
      flag: 'operator-port',
      variables: ['KUBEDAG_OPERATOR_PORT'],
      value: 'PORT',
      default: { preferred: DEFAULT_OPERATOR_PORT },
      defaultText: `${String(DEFAULT_OPERATOR_PORT)} while free, else a free port`,
      description: "The operator's port (dev), likewise.",
      read: port,
    }),
    quiet: setting({
      flag: 'quiet',
      variables: ['KUBEDAG_DEV_QUIET'],
      isSwitch: true,
      default: false,
      description:
        "Only the summary on the console (dev), not the components' logs; the variable is on when 1, true or yes.",
      read: (text) => ['1', 'true', 'yes'].includes(text.toLowerCase()),
    }),
  };
}

export function parseDevSettings(flags: FlagValues, env: Env, root: string, cwd: string): DevSettings {
  return resolveSettings(devSettingsTable(root, cwd), flags, env);
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
  /** The step exec ClusterRole the local cluster has (cluster/step-exec-role.ts). */
  readonly execRole: string;
  /** The operator's default step image, when the cluster's nodes lack its own default (a real node: cluster/real-node/images.ts). */
  readonly stepImage?: string;
}

/**
 * The operator's and the API server's arguments as `make dev` runs them. The API fuzz stack's
 * `dev` profile (scripts/fuzz/stack.ts) runs them with these too, so that what schemathesis finds
 * there is what a `make dev` user meets. Pure.
 */
export function devProgramArgs(at: DevPrograms): { readonly operator: string[]; readonly apiserver: string[] } {
  return {
    operator: [
      `--kubeconfig=${at.kubeconfig}`,
      `--step-exec-role=${at.execRole}`,
      `--log-dir=${at.logDir}`,
      '--lease-duration-seconds=5',
      '--log-format=pretty',
      `--http-port=${String(at.operatorPort)}`,
      ...(at.stepImage === undefined ? [] : [`--default-step-image=${at.stepImage}`]),
    ],
    // The API server serves the kubeconfig's namespace ("default" for make dev's cluster).
    apiserver: [
      `--kubeconfig=${at.kubeconfig}`,
      `--operator-url=http://127.0.0.1:${String(at.operatorPort)}`,
      '--log-format=pretty',
      '--host=127.0.0.1',
      `--port=${String(at.apiPort)}`,
    ],
  };
}
