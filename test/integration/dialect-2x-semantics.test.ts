/**
 * Dagu 2.x step semantics (issue 26) run by the operator on the local control plane: values
 * picked out of a step's stdout and stderr (object-form `output:` and `stdout: {outputs}`) or
 * written by `action: outputs.write`, and read by later steps through
 * \${steps.<id>.outputs.<name>}; stdout checked against an `output_schema`; a foreach over items known only
 * when it runs (a previous step's output), and one whose items are named by `key` and whose
 * `collect` gathers values from each item's run; the DAG-level retry_policy, which retries a failed
 * run in place up to its limit. The loader's and the engine's unit
 * tests (core/dag/picked-outputs.test.ts, operator/run/decide/picked-values.test.ts) prove the
 * rules; these prove that the operator reads the archived streams and the steps get the values.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from './support.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import {
  finishedRun,
  givenDag,
  runsOf,
  storedRun,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('semantics2x', (made) => ({ ns, operator } = made));

describe('a Dagu 2.x step that picks outputs', () => {
  it('publishes values picked out of its stdout, stderr and a file it wrote (secrets masked) and written by outputs.write to later steps, and fails when stdout does not decode, fails its output_schema or the file is missing', async () => {
    await givenDag(
      ns,
      'picked',
      `
working_dir: /tmp
kubernetes: {env: [{name: KUBEDAG_FIXTURE_TOKEN, value: tok-s3cret-value}]}
secrets:
  - {name: TOKEN, provider: env, key: KUBEDAG_FIXTURE_TOKEN}
env:
  - STAGE: prod
  - OUT: out
steps:
  - id: build
    run: |
      echo '{"image": {"tag": "1.4.2"}, "sizes": [3, 5]}'
      echo 'warnings: 2' >&2
      mkdir -p out && echo 'release: "2.0"' > out/release.yaml
      printf '{"token": "%s"}' "$TOKEN" > out/token.json
    output:
      RELEASE: {from: file, path: '\${OUT}/release.yaml', decode: yaml, select: .release}
      TOKEN_SEEN: {from: file, path: out/token.json, decode: json, select: .token}
      TAG: {from: stdout, select: .image.tag}
      FIRST: {from: stdout, decode: json, select: '.sizes[0]'}
      WARNINGS: {from: stderr, decode: yaml, select: .warnings}
      CHANNEL: {value: "\${STAGE}-stable"}
  - id: meta
    run: "echo '{\\"arch\\": \\"amd64\\", \\"os\\": \\"linux\\"}'"
    stdout:
      outputs: {decode: json}
    output_schema: {type: object, required: [arch, os]}
  - id: publish
    depends: [build, meta]
    run: echo "\${steps.build.outputs.TAG} \${steps.build.outputs.FIRST} \${steps.meta.outputs.arch} \${steps.build.outputs.WARNINGS} \${steps.build.outputs.CHANNEL} \${steps.build.outputs.RELEASE}"
  - id: written
    depends: [build]
    action: outputs.write
    with:
      values: {tag: "\${steps.build.outputs.TAG}", count: 2}
  - id: unschemed
    run: "echo '{\\"arch\\": 1}'"
    output_schema: {type: object, properties: {arch: {type: string}}}
  - id: broken
    run: echo not json
    output:
      A: {from: stdout, decode: json}
  - id: nofile
    run: echo none
    output:
      B: {from: file, path: absent.txt}
`,
    );
    await whenRun(ns, 'picked-1', 'picked');
    const done = await finishedRun(ns, 'picked-1', 120_000);
    expect(stepStates(done)).toEqual({
      build: 'succeeded',
      meta: 'succeeded',
      publish: 'succeeded',
      written: 'succeeded',
      unschemed: 'failed',
      broken: 'failed',
      nofile: 'failed',
    });
    const node = (name: string) => done.status?.nodes?.find((n) => n.name === name);
    expect(node('build')?.stepOutputs).toEqual({
      RELEASE: '2.0',
      TOKEN_SEEN: '*******',
      TAG: '1.4.2',
      FIRST: '3',
      WARNINGS: '2',
      CHANNEL: 'prod-stable',
    });
    expect(node('meta')?.stepOutputs).toEqual({ arch: 'amd64', os: 'linux' });
    expect(await stepLog(operator, done, 'publish')).toBe('1.4.2 3 amd64 2 prod-stable 2.0\n');
    expect(node('written')?.stepOutputs).toEqual({ tag: '1.4.2', count: '2' });
    expect(node('unschemed')?.error).toBe('failed to validate output_schema: stdout JSON does not match output_schema');
    expect(node('broken')?.error).toBe('failed to evaluate structured output: A: failed to decode JSON');
    expect(node('nofile')?.error).toBe(
      'failed to evaluate structured output: B: failed to read file "/tmp/absent.txt": no such file or directory',
    );
  });
});

describe('a Dagu 2.x foreach over items known when it runs', () => {
  it("runs its body once per item of a previous step's output, and fails when the value is no JSON array", async () => {
    await givenDag(
      ns,
      'loop-dynamic',
      `
steps:
  - id: list
    run: echo '["a.csv", "b.csv", "a.csv"]'
    output:
      FILES: {from: stdout, decode: json}
  - id: each
    depends: [list]
    foreach:
      items: \${steps.list.outputs.FILES}
      max_concurrent: 2
      steps:
        - id: show
          run: echo "file \${foreach.item} at \${foreach.index}"
    output: EACH
  - id: after
    depends: [each]
    run: echo "\${EACH.summary.succeeded} of \${EACH.summary.total}"
  - id: text
    run: echo a b
    output:
      WORDS: {from: stdout}
  - id: broken
    depends: [text]
    foreach:
      items: \${steps.text.outputs.WORDS}
      steps:
        - run: echo never
`,
    );
    await whenRun(ns, 'loop-dynamic-1', 'loop-dynamic');
    const done = await finishedRun(ns, 'loop-dynamic-1', 120_000);
    expect(stepStates(done)).toEqual({
      list: 'succeeded',
      each: 'succeeded',
      after: 'succeeded',
      text: 'succeeded',
      broken: 'failed',
    });
    expect(await stepLog(operator, done, 'after')).toBe('3 of 3\n');
    const bodies = await runsOf(ns, 'each-foreach');
    const shown = await Promise.all(bodies.map((body) => stepLog(operator, body, 'show')));
    expect(shown.sort()).toEqual(['file a.csv at 0\n', 'file a.csv at 2\n', 'file b.csv at 1\n']);
    expect(done.status?.nodes?.find((n) => n.name === 'broken')?.error).toBe(
      'foreach.items string must resolve to a JSON array: "a b"',
    );
  });
});

describe('a Dagu 2.x foreach with key and collect', () => {
  it("names each item by its key, gathers each item's collected values in Dagu's shape, and fails on duplicate keys before any item runs", async () => {
    await givenDag(
      ns,
      'loop-keyed',
      `
steps:
  - id: episodes
    foreach:
      items:
        - {slug: one, url: https://example.com/one}
        - {slug: two, url: https://example.com/two}
      as: episode
      key: \${foreach.episode.slug}
      max_concurrent: 2
      steps:
        - id: summarize
          run: echo "\${foreach.episode.url}"
          output: BODY_RESULT
        - id: count
          depends: [summarize]
          run: echo '{"words":2}'
          stdout:
            outputs: {decode: json}
        - id: named
          run: echo "item \${foreach.key}"
      collect:
        text: \${summarize.output}
        words: \${steps.count.outputs.words}
        label: \${foreach.key} at \${foreach.index}
    output: EACH
  - id: after
    depends: [episodes]
    run: echo "\${EACH.summary.succeeded} of \${EACH.summary.total}"
  - id: dups
    foreach:
      items: [{slug: same}, {slug: same}]
      key: \${foreach.item.slug}
      steps:
        - run: echo never
`,
    );
    await whenRun(ns, 'loop-keyed-1', 'loop-keyed');
    const done = await finishedRun(ns, 'loop-keyed-1', 120_000);
    expect(stepStates(done)).toEqual({ episodes: 'succeeded', after: 'succeeded', dups: 'failed' });
    const node = (name: string) => done.status?.nodes?.find((n) => n.name === name);
    expect(JSON.parse(node('episodes')?.outputs?.EACH ?? '{}')).toEqual({
      summary: { total: 2, succeeded: 2, failed: 0 },
      items: [
        {
          index: 0,
          key: 'one',
          status: 'succeeded',
          outputs: { label: 'one at 0', text: 'https://example.com/one', words: '2' },
        },
        {
          index: 1,
          key: 'two',
          status: 'succeeded',
          outputs: { label: 'two at 1', text: 'https://example.com/two', words: '2' },
        },
      ],
      outputs: [
        { label: 'one at 0', text: 'https://example.com/one', words: '2' },
        { label: 'two at 1', text: 'https://example.com/two', words: '2' },
      ],
    });
    expect(await stepLog(operator, done, 'after')).toBe('2 of 2\n');
    expect(node('dups')?.error).toBe('duplicate foreach item key "same" at item 1; first seen at item 0');
    const bodies = await runsOf(ns, 'episodes-foreach');
    const named = await Promise.all(bodies.map((body) => stepLog(operator, body, 'named')));
    expect(named.sort()).toEqual(['item one\n', 'item two\n']);
    expect(await runsOf(ns, 'dups-foreach')).toEqual([]);
  });
});

describe("a Dagu 2.x DAG's retry_policy", () => {
  it('retries a failed run in place after its interval until it succeeds, or until the limit is spent', async () => {
    await givenDag(
      ns,
      'flaky',
      `
retry_policy: {limit: 2, interval_sec: 1}
steps:
  - id: first
    run: echo first
  - id: flaky
    depends: [first]
    run: test -f .marker || { touch .marker; exit 1; }
`,
    );
    await givenDag(ns, 'broken', 'retry_policy: {limit: 1, interval_sec: 1}\nsteps:\n  - run: exit 3\n');
    await whenRun(ns, 'flaky-1', 'flaky');
    await whenRun(ns, 'broken-1', 'broken');
    const retried = async (name: string, count: string, label: string): Promise<void> =>
      waitFor(
        `run ${name} retried ${count} time(s), then ${label}`,
        async () => {
          const run = await storedRun(ns, name);
          return run.metadata?.annotations?.[ANNOTATIONS.autoRetries] === count && run.status?.statusLabel === label;
        },
        60_000,
        200,
      );
    await retried('flaky-1', '1', 'succeeded');
    const flaky = await finishedRun(ns, 'flaky-1');
    expect(stepStates(flaky)).toEqual({ first: 'succeeded', flaky: 'succeeded' });
    await retried('broken-1', '1', 'failed');
    // The limit is spent: the failed run stays failed, whatever time passes.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const broken = await storedRun(ns, 'broken-1');
    expect([broken.metadata?.annotations?.[ANNOTATIONS.autoRetries], broken.status?.statusLabel]).toEqual([
      '1',
      'failed',
    ]);
  });
});
