import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertDag } from './convert.ts';
import { decideDialect } from './dialect.ts';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { parseYamlDocuments } from './yaml.ts';

const dir = join(import.meta.dirname, '../../test/fixtures/dialect');
const fixture = (name: string): string => readFileSync(join(dir, name), 'utf8');
const pairs = readdirSync(dir)
  .filter((f) => f.endsWith('.1x.yaml'))
  .map((f) => f.replace(/\.1x\.yaml$/, ''));
/** Pairs whose 2.x side uses what Dagu 1.x has no form for, with what the conversion reports. */
const ONE_WAY: Readonly<Record<string, string | readonly string[]>> = {
  'http-resources': [
    'steps[0].with.form: http with.form has no Dagu 1.x form',
    'steps[0].with.files: http with.files has no Dagu 1.x form',
    'steps[0].with.format: http with.format has no Dagu 1.x form',
    'steps[1].with.output: http with.output has no Dagu 1.x form',
  ],
  approval: 'steps[1].approval: "approval" has no Dagu 1.x form',
  artifacts: 'steps[0].stdout: "stdout" has no Dagu 1.x form',
  'picked-outputs': 'steps[0].output: "output" has no Dagu 1.x form',
  'publish-only': 'steps[0].output: "output" has no Dagu 1.x form',
  outputs:
    'steps[0].outputs: declared step outputs (and the ${steps.<id>.outputs.<name>} that read them) have no Dagu 1.x form',
};

/**
 * Pairs the converter cannot rewrite from 2.x yet: its check finds the meaning would change (a 2.x foreach body lives in a generated local DAG the rewrite does not write out), so
 * it refuses rather than write another DAG (docs/decisions/2026-11-29-dagu-2x-convert.md).
 */
const dialectOf = (text: string): string => decideDialect(parseYamlDocuments(text).documents[0]).dialect;

function roundTrip(text: string, there: '1.x' | '2.x', back: '1.x' | '2.x'): { middle: string; end: string } {
  const first = convertDag(text, { fileName: 'pair', to: there });
  expect([first.errors.map(formatIssue), first.losses.map(formatIssue)]).toEqual([[], []]);
  const second = convertDag(first.text ?? '', { fileName: 'pair', to: back });
  expect([second.errors.map(formatIssue), second.losses.map(formatIssue)]).toEqual([[], []]);
  return { middle: first.text ?? '', end: second.text ?? '' };
}

describe('convertDag round trips over the fixture pairs', () => {
  const model = (text: string): unknown => loadDag(text, { fileName: 'pair' }).dag;

  it('foreach: 2.x -> 1.x writes the body as a local DAG after the file, called once per item', () => {
    const got = convertDag(fixture('foreach.2x.yaml'), { fileName: 'pair', to: '1.x' });
    expect(got.errors).toEqual([]);
    expect(parseYamlDocuments(got.text ?? '').documents.map((doc) => (doc as { name?: string }).name)).toEqual([
      undefined, // the first document is named by its file
      'each-foreach',
    ]);
  });

  it.each(pairs.filter((pair) => ONE_WAY[pair] === undefined))(
    '%s: 1.x -> 2.x -> 1.x and 2.x -> 1.x -> 2.x keep the model',
    (pair) => {
      for (const [start, there, back] of [
        [fixture(`${pair}.1x.yaml`), '2.x', '1.x'],
        [fixture(`${pair}.2x.yaml`), '1.x', '2.x'],
      ] as const) {
        const { middle, end } = roundTrip(start, there, back);
        expect(model(middle)).toEqual(model(start));
        expect(model(end)).toEqual(model(start));
        if (there === '1.x') expect(dialectOf(middle)).toBe('1.x');
      }
    },
  );

  it.each(Object.entries(ONE_WAY))('%s: says what 1.x cannot carry, and writes nothing', (pair, loss) => {
    const got = convertDag(fixture(`${pair}.2x.yaml`), { fileName: 'pair', to: '1.x' });
    expect([got.text, got.losses.map(formatIssue)]).toEqual([undefined, [loss].flat()]);
  });
});

describe('convertDag', () => {
  it('keeps comments, key order and flow style, renaming keys in place', () => {
    const got = convertDag(
      '# nightly\nname: n # the name\ntype: graph\ntimeoutSec: 5 # five\nsteps:\n  # first\n  - {name: a, command: echo a, retryPolicy: {limit: 1, intervalSec: 2}}\n',
      { to: '2.x', fileName: 'a' },
    );
    expect(got.text).toBe(
      '# nightly\nname: n # the name\ntype: graph\ntimeout_sec: 5 # five\nsteps:\n  # first\n  - {name: a, run: echo a, retry_policy: {limit: 1, interval_sec: 2}}\n',
    );
  });

  it('converts to the other dialect by default, and leaves a file already in the target as it is', () => {
    const text = 'timeout_sec: 5\nsteps:\n  - run: echo a\n';
    expect(convertDag(text, { fileName: 'a' }).to).toBe('1.x');
    expect(convertDag(text, { to: '2.x', fileName: 'a' }).text).toBe(text);
  });

  it('puts a rewritten 2.x step where it was: run becomes command in place', () => {
    const got = convertDag('name: n\nsteps:\n  - name: a\n    run: echo a # say a\n    depends: []\n', {
      to: '1.x',
      fileName: 'a',
    });
    expect(got.text).toBe('name: n\ntype: graph\nsteps:\n  - name: a\n    command: echo a # say a\n    depends: []\n');
  });

  it('converts each document of a file on its own', () => {
    const got = convertDag(
      'name: a\ntype: chain\nsteps: [echo a]\n---\nname: child\ntimeoutSec: 3\nsteps: [echo c]\n',
      {
        to: '2.x',
      },
    );
    expect(got.from).toEqual(['1.x', '1.x']);
    expect(got.text).toBe(
      'name: a\ntype: chain\nsteps: [echo a]\n---\nname: child\ntype: chain\ntimeout_sec: 3\nsteps: [echo c]\n',
    );
  });

  it('reports a refused 2.x feature as a loss, and with lossy writes the rest', () => {
    const text = 'type: graph\nsteps:\n  - name: a\n    run: echo a\n    log_output: merged\n';
    const strict = convertDag(text, { to: '1.x', fileName: 'a' });
    expect([strict.text, strict.losses.map(formatIssue)]).toEqual([
      undefined,
      [
        "steps[0].log_output: Dagu 2.x feature log_output: merged is not supported: Kubedag keeps a step's stdout and stderr apart in its log store; merge them in the command (2>&1) instead",
      ],
    ]);
    expect(convertDag(text, { to: '1.x', lossy: true, fileName: 'a' }).text).toBe(
      'type: graph\nsteps:\n  - name: a\n    command: echo a\n',
    );
  });

  it('carries log_output: separate as nothing (the layout both have), and reports outputs.write as a loss', () => {
    const separate = convertDag('steps:\n  - {name: a, run: echo a, log_output: separate}\n', {
      to: '1.x',
      fileName: 'a',
    });
    expect([separate.losses, separate.text]).toEqual([[], 'type: graph\nsteps:\n  - {name: a, command: echo a}\n']);
    const write = convertDag('steps:\n  - {id: a, action: outputs.write, with: {values: {X: "1"}}}\n', {
      to: '1.x',
      fileName: 'a',
    });
    expect([write.text, write.losses.map(formatIssue)]).toEqual([
      undefined,
      ['steps[0].output: "output" has no Dagu 1.x form'],
    ]);
  });

  it.each([
    [
      '2.x',
      '1.x',
      'container: {image: python:3.12}\nsteps:\n  - {id: own, run: node -v, container: {image: node:24}}\n',
      'a docker step with settings of its own beside the DAG-level container has no Dagu 1.x form: 1.x runs every docker step in the DAG-level container',
    ],
    [
      '1.x',
      '2.x',
      'container: {image: python:3.12}\nsteps:\n  - {name: a, executor: {type: docker, config: {image: busybox}}, command: "true"}\n',
      'the settings of a docker step in the DAG-level container (Dagu 1.x ignores them) have no Dagu 2.x form: 2.x would run the step in a container of its own',
    ],
  ])(
    'from %s to %s, reports a docker step with settings beside the DAG-level container as a loss',
    (_from, to, text, why) => {
      const got = convertDag(text, { to: to as '1.x' | '2.x', fileName: 'a' });
      expect([got.text, got.losses.map(formatIssue)]).toEqual([undefined, [`steps[0]: ${why}`]]);
    },
  );

  it('refuses a negated precondition, which 1.x cannot say', () => {
    const got = convertDag(
      'steps:\n  - run: echo a\n    preconditions: [{condition: "$A", expected: x, negate: true}]\n',
      { to: '1.x', fileName: 'a' },
    );
    expect(got.losses.map(formatIssue)).toEqual([
      'steps[0].preconditions[0].negate: a negated precondition has no Dagu 1.x form',
    ]);
  });

  it('writes a 2.x result whose only 2.x key is an executor setting, which reads as 2.x', () => {
    const source =
      'type: graph\nsteps:\n  - {name: a, type: http, config: {skipTLSVerify: true}, command: GET https://x}\n';
    const got = convertDag(source, { to: '2.x', fileName: 'a' });
    expect([got.errors.map(formatIssue), got.text]).toEqual([[], expect.stringContaining('skip_tls_verify: true')]);
    // convertDag itself refuses a result that loads to another model than the source.
    expect(dialectOf(got.text ?? '')).toBe('2.x');
  });

  it('reports the init and wait handlers and the wait mail as losses, and with lossy writes the rest', () => {
    const text =
      'mail_on: {wait: true, failure: true}\nwait_mail: {to: [a@x]}\nhandler_on:\n  init: {run: echo i}\n  wait: {run: echo w}\n  exit: {run: echo x}\nsteps:\n  - {name: a, run: echo a}\n';
    const strict = convertDag(text, { to: '1.x', fileName: 'a' });
    expect([strict.text, strict.losses.map(formatIssue)]).toEqual([
      undefined,
      [
        'handler_on.init: handler_on.init has no Dagu 1.x form',
        'handler_on.wait: handler_on.wait has no Dagu 1.x form',
        'wait_mail: wait_mail has no Dagu 1.x form',
        'mail_on.wait: mail_on.wait has no Dagu 1.x form',
      ],
    ]);
    const lossy = convertDag(text, { to: '1.x', lossy: true, fileName: 'a' });
    expect([lossy.errors, lossy.text]).toEqual([
      [],
      'type: graph\nmailOn: {failure: true}\nhandlerOn:\n  exit: {command: echo x}\nsteps:\n  - {name: a, command: echo a}\n',
    ]);
  });

  it('converts nothing of an invalid file and returns its errors', () => {
    const got = convertDag('steps:\n  - {name: a, command: echo, depends: ghost}\n');
    expect(got.text).toBeUndefined();
    expect(got.errors.length).toBeGreaterThan(0);
  });
});
