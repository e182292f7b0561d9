import { describe, expect, it } from 'vitest';
import { renderHelp } from '../core/settings-help.ts';
import {
  defaultsUnlikeHelp,
  helpGaps,
  ignoredNames,
  runProgram,
  undeclaredVariables,
} from '../test/settings-checks.ts';
import { API_HELP, parseApiConfig } from './config.ts';

const NO_FILES = (path: string): string => {
  throw new Error(`ENOENT: no such file, open '${path}'`);
};
const parse = (argv: readonly string[], env: NodeJS.ProcessEnv): unknown => parseApiConfig(argv, env, NO_FILES);

describe('the API server’s settings table', () => {
  it('answers --help with every setting, its flag, variables, default and description, and exits 0', () => {
    const ran = runProgram('apiserver/main.ts', ['-h'], {});
    expect([ran.status, ran.stderr]).toEqual([0, '']);
    expect(ran.stdout).toBe(renderHelp(API_HELP));
    expect(helpGaps(ran.stdout, API_HELP.settings)).toEqual([]);
  });

  it('parses every flag and variable that help lists, the credentials’ variables included', () => {
    expect(ignoredNames(API_HELP.settings, parse)).toEqual([]);
  });

  it('uses the defaults that help shows', () => {
    expect(defaultsUnlikeHelp(API_HELP.settings, parse)).toEqual([]);
  });

  it('reads no KUBEDAG_ variable that the table leaves out', () => {
    expect(undeclaredVariables(['apiserver/config.ts', 'apiserver/main.ts', 'core/log.ts'], API_HELP.settings)).toEqual(
      [],
    );
  });
});
