import { describe, expect, it } from 'vitest';
import { oneXToTwoX } from './convert-to-2x.ts';

const step = (value: Record<string, unknown>): unknown => oneXToTwoX({ type: 'graph', steps: [value] }).document.steps;

describe('oneXToTwoX: each rule', () => {
  it.each([
    {
      name: 'renames a root key by the one table',
      input: { type: 'graph', timeoutSec: 5, histRetentionDays: 3, steps: [] },
      want: { type: 'graph', timeout_sec: 5, hist_retention_days: 3, steps: [] },
    },
    {
      name: 'matches 1.x keys case-insensitively, as the 1.x reader does',
      input: { type: 'graph', TIMEOUTSEC: 5, steps: [] },
      want: { type: 'graph', timeout_sec: 5, steps: [] },
    },
    {
      name: 'writes the 1.x default type, chain, after the name',
      input: { name: 'a', env: [], steps: [] },
      want: { name: 'a', type: 'chain', env: [], steps: [] },
    },
    {
      name: 'renames the cancel handler to abort and its step keys',
      input: { type: 'graph', handlerOn: { cancel: { command: 'echo x y', timeoutSec: 1 } }, steps: [] },
      want: { type: 'graph', handler_on: { abort: { run: 'echo x y', timeout_sec: 1 } }, steps: [] },
    },
    {
      name: 'splits a DAG shell list into shell and shell_args',
      input: { type: 'graph', shell: ['bash', '-e'], steps: [] },
      want: { type: 'graph', shell: 'bash', shell_args: ['-e'], steps: [] },
    },
    {
      name: 'renames precondition and the container working directory',
      input: { type: 'graph', precondition: 'test -d /', container: { image: 'a', workDir: '/w' }, steps: [] },
      want: { type: 'graph', preconditions: 'test -d /', container: { image: 'a', working_dir: '/w' }, steps: [] },
    },
  ])('$name', ({ input, want }) => {
    const got = oneXToTwoX(input);
    expect(got.losses).toEqual([]);
    expect(got.document).toEqual(want);
  });

  it.each([
    { name: 'a shell command becomes run', input: { command: 'echo hi' }, want: { run: 'echo hi' } },
    {
      name: 'a command that could be a DAG name stays command, since run: name would call a sub-DAG in 1.x',
      input: { command: 'ls' },
      want: { command: 'ls' },
    },
    {
      name: 'the executable-and-arguments list becomes exec, its 2.x twin',
      input: { command: ['printf', '%s\n', 'two words', 3] },
      want: { exec: { command: 'printf', args: ['%s\n', 'two words', '3'] } },
    },
    {
      name: 'beside a type the list becomes one line with the words quoted',
      input: { type: 'ssh', command: ['echo', 'two words', "it's"] },
      want: { type: 'ssh', command: `echo 'two words' 'it'\\''s'` },
    },
    {
      name: 'keys in another letter case take the schema spelling',
      input: { Name: 'a', Depends: ['b'], Script: 'ls' },
      want: { name: 'a', depends: ['b'], script: 'ls' },
    },
    {
      name: 'run (a 1.x sub-DAG call) becomes call',
      input: { run: 'child', params: 'A=1' },
      want: { call: 'child', params: 'A=1' },
    },
    {
      name: 'executor becomes type and config, settings in 2.x spelling',
      input: { executor: { type: 'docker', config: { image: 'a', containerName: 'c' } }, command: 'echo x' },
      want: { type: 'docker', config: { image: 'a', container_name: 'c' }, command: 'echo x' },
    },
    {
      name: 'an executor name becomes type',
      input: { executor: 'ssh', command: 'uptime' },
      want: { type: 'ssh', command: 'uptime' },
    },
    {
      name: 'a typed step keeps command, and its config is spelled as 2.x',
      input: { type: 'http', config: { skipTLSVerify: true }, command: 'GET https://x' },
      want: { type: 'http', config: { skip_tls_verify: true }, command: 'GET https://x' },
    },
    {
      name: 'dir becomes working_dir and nested policies are renamed',
      input: { dir: '/w', script: 'ls', retryPolicy: { limit: 2, intervalSec: 1 }, continueOn: { exitCode: [1] } },
      want: {
        working_dir: '/w',
        script: 'ls',
        retry_policy: { limit: 2, interval_sec: 1 },
        continue_on: { exit_code: [1] },
      },
    },
  ])('step: $name', ({ input, want }) => {
    expect(step(input)).toEqual([want]);
  });

  it('rewrites typed-params-shaped JSON Schema params as the typed list', () => {
    const got = oneXToTwoX({
      type: 'graph',
      params: {
        schema: {
          type: 'object',
          properties: { N: { type: 'integer', default: 2, maximum: 9 }, S: { type: 'string', minLength: 1 } },
          additionalProperties: false,
          required: ['S'],
        },
        values: [{ N: 2 }],
      },
    });
    expect(got.document.params).toEqual([
      { name: 'N', type: 'integer', default: 2, maximum: 9 },
      { name: 'S', type: 'string', required: true, min_length: 1 },
    ]);
  });

  it('keeps a JSON Schema the typed list cannot say as written, which 2.x reads as a schema too', () => {
    const params = { schema: { type: 'object', properties: { N: { anyOf: [] } } } };
    const got = oneXToTwoX({ type: 'graph', params });
    expect([got.losses, got.document]).toEqual([[], { type: 'graph', params }]);
  });

  it('keeps a schema with values other than the defaults as written', () => {
    const schema = { type: 'object', properties: { N: { type: 'integer' } }, additionalProperties: false };
    const got = oneXToTwoX({ params: { schema, values: [{ N: 4 }] } });
    expect([got.losses, got.document.params]).toEqual([[], { schema, values: [{ N: 4 }] }]);
  });
});
