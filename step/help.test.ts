import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHelp } from '../core/settings-help.ts';
import { helpGaps, runProgram, undeclaredVariables } from '../test/settings-checks.ts';
import { STEP_COMMANDS, STEP_HELP, STEP_SETTINGS } from './help.ts';

describe('kubedag-step --help', () => {
  it('lists the commands and every variable the runner reads, with its default, and exits 0', () => {
    const ran = runProgram('step/main.ts', ['--help'], {});
    expect([ran.status, ran.stderr]).toEqual([0, '']);
    expect(ran.stdout).toBe(renderHelp(STEP_HELP));
    expect(helpGaps(ran.stdout, STEP_SETTINGS)).toEqual([]);
    for (const command of STEP_COMMANDS) expect(ran.stdout).toContain(`  ${command.name} `);
  });

  it('names every KUBEDAG_ variable of the runner’s contract with the operator', () => {
    const contract = readdirSync(join(import.meta.dirname, '../core/runner')).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    expect(
      undeclaredVariables(
        contract.map((file) => `core/runner/${file}`),
        STEP_SETTINGS,
      ),
    ).toEqual([]);
  });
});
