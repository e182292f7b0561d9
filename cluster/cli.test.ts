import { describe, expect, it } from 'vitest';
import { parseFlags } from '../core/settings.ts';
import { renderHelp } from '../core/settings-help.ts';
import { helpGaps, ignoredNames, runProgram } from '../test/settings-checks.ts';
import { cacheDir, CACHE_SETTINGS } from '../build/cache-dir.ts';
import { clusterHelp, clusterSettings } from './cli-settings.ts';
import { devSettingsTable, parseDevSettings } from './dev-settings.ts';
import { defaultRunnerCache, STEP_RUNNER_SETTINGS } from './step-runner.ts';

describe('node cluster/cli.ts --help', () => {
  it('lists the commands and every flag and variable with its default, and exits 0', () => {
    const ran = runProgram('cluster/cli.ts', ['--help'], {});
    expect([ran.status, ran.stderr]).toEqual([0, '']);
    const settings = clusterSettings(process.cwd());
    expect(ran.stdout).toBe(renderHelp(clusterHelp(settings)));
    expect(helpGaps(ran.stdout, settings)).toEqual([]);
    for (const command of ['build', 'up', 'down', 'dev']) expect(ran.stdout).toContain(`  ${command} `);
  });

  it('parses every flag and variable of a stack that help lists', () => {
    const table = devSettingsTable('/repo', '/cwd');
    expect(
      ignoredNames(table, (argv, env) => parseDevSettings(parseFlags(table, argv).values, env, '/repo', '/cwd')),
    ).toEqual([]);
  });

  it('reads the cache variables that help lists', () => {
    expect(ignoredNames(CACHE_SETTINGS, (_, env) => cacheDir(env))).toEqual([]);
    expect(ignoredNames(STEP_RUNNER_SETTINGS, (_, env) => defaultRunnerCache(env))).toEqual([]);
  });
});
