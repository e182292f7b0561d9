import { describe, expect, it } from 'vitest';
import { renderHelp } from '../core/settings-help.ts';
import {
  defaultsUnlikeHelp,
  helpGaps,
  ignoredNames,
  runProgram,
  undeclaredVariables,
} from '../test/settings-checks.ts';
import { OPERATOR_HELP, OPERATOR_SETTINGS, parseConfig } from './config.ts';

describe('the operator’s settings table', () => {
  it('answers --help with every setting, its flag, variables, default and description, and exits 0', () => {
    const ran = runProgram('operator/main.ts', ['--help'], {});
    expect([ran.status, ran.stderr]).toEqual([0, '']);
    expect(ran.stdout).toBe(renderHelp(OPERATOR_HELP));
    expect(helpGaps(ran.stdout, OPERATOR_SETTINGS)).toEqual([]);
  });

  it('refuses an unknown option with exit status 1 and a message that points at --help', () => {
    const ran = runProgram('operator/main.ts', ['--bogus'], {});
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([
      1,
      '',
      "kubedag operator: Unknown option '--bogus' (--help lists the settings)\n",
    ]);
  });

  it('parses every flag and variable that help lists', () => {
    expect(ignoredNames(OPERATOR_SETTINGS, parseConfig)).toEqual([]);
  });

  it('uses the defaults that help shows', () => {
    expect(defaultsUnlikeHelp(OPERATOR_SETTINGS, parseConfig)).toEqual([]);
  });

  it('reads no KUBEDAG_ variable that the table leaves out', () => {
    expect(
      undeclaredVariables(
        ['operator/config.ts', 'operator/logs/store-config.ts', 'operator/main.ts', 'core/log.ts'],
        OPERATOR_SETTINGS,
      ),
    ).toEqual([]);
  });
});
