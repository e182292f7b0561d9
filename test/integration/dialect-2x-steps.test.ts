/**
 * Dagu 2.x step forms (issue 26) run by the operator on the local control plane: a `foreach`
 * step, whose body runs once per item as a sub-run of a generated local DAG, and the init
 * handler, which runs before the first step; declared outputs of docker and kubernetes steps,
 * which run in step Pods of their own. The loader's unit tests
 * (core/dag/dialect-foreach.test.ts) and the engine's (operator/run/init-handler.test.ts) prove
 * the decisions; these prove the work is done.
 */
import { describe, expect, it } from 'vitest';
import {
  finishedRun,
  givenDag,
  runsOf,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('steps2x', (made) => ({ ns, operator } = made));

describe('a Dagu 2.x foreach step', () => {
  it('runs its body once per item, the item and its index in reach, and hands the results on', async () => {
    await givenDag(
      ns,
      'loop',
      `
env:
  - GREETING: hello
steps:
  - id: each
    foreach:
      items: [{slug: alpha}, {slug: beta}, {slug: alpha}]
      as: episode
      max_concurrent: 2
      steps:
        - id: show
          run: echo "\${GREETING} \${foreach.episode} at \${foreach.index}"
        - id: slug
          depends: [show]
          run: echo "slug \${foreach.episode.slug}"
          output: SLUG
    output: EACH
  - id: after
    depends: [each]
    run: echo "\${EACH.summary.succeeded} of \${EACH.summary.total}"
`,
    );
    await whenRun(ns, 'loop-1', 'loop');
    const done = await finishedRun(ns, 'loop-1', 120_000);
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { each: 'succeeded', after: 'succeeded' },
    ]);
    expect(await stepLog(operator, done, 'after')).toBe('3 of 3\n');
    const bodies = await runsOf(ns, 'each-foreach');
    const shown = await Promise.all(bodies.map((body) => stepLog(operator, body, 'show')));
    expect(shown.sort()).toEqual([
      'hello {"slug":"alpha"} at 0\n',
      'hello {"slug":"alpha"} at 2\n',
      'hello {"slug":"beta"} at 1\n',
    ]);
    const slugs = await Promise.all(bodies.map((body) => stepLog(operator, body, 'slug')));
    expect(slugs.sort()).toEqual(['slug alpha\n', 'slug alpha\n', 'slug beta\n']);
  });

  it('fails when the body fails for an item', async () => {
    await givenDag(
      ns,
      'loop-fails',
      `
steps:
  - id: each
    foreach:
      items: [0, 3]
      steps:
        - run: exit \${foreach.item}
`,
    );
    await whenRun(ns, 'loop-fails-1', 'loop-fails');
    const done = await finishedRun(ns, 'loop-fails-1', 120_000);
    expect([done.status?.statusLabel, stepStates(done)]).toEqual(['failed', { each: 'failed' }]);
  });
});

describe('a Dagu 2.x init handler', () => {
  it("runs before the first step, in the run's workspace, and the steps then run", async () => {
    await givenDag(
      ns,
      'init-ok',
      `
handler_on:
  init:
    run: echo prepared > marker
steps:
  - id: first
    run: cat marker
`,
    );
    await whenRun(ns, 'init-ok-1', 'init-ok');
    const done = await finishedRun(ns, 'init-ok-1', 120_000);
    expect([done.status?.statusLabel, done.status?.onInit?.statusLabel, stepStates(done)]).toEqual([
      'succeeded',
      'succeeded',
      { first: 'succeeded' },
    ]);
    expect(await stepLog(operator, done, 'first')).toBe('prepared\n');
  });

  it('failing, starts no step and cancels the run after its abort and exit handlers', async () => {
    await givenDag(
      ns,
      'init-fails',
      `
handler_on:
  init:
    run: exit 4
  abort:
    run: echo aborted
  exit:
    run: echo bye
steps:
  - id: first
    run: echo never
`,
    );
    await whenRun(ns, 'init-fails-1', 'init-fails');
    const done = await finishedRun(ns, 'init-fails-1', 120_000);
    const status = done.status;
    expect([
      status?.statusLabel,
      status?.endReason,
      status?.onInit?.statusLabel,
      status?.onCancel?.statusLabel,
      status?.onExit?.statusLabel,
      stepStates(done),
      // A step that never started has no record (core/resources/run-records.ts).
    ]).toEqual(['canceled', 'init', 'failed', 'succeeded', 'succeeded', {}]);
    expect(await stepLog(operator, done, 'onCancel')).toBe('aborted\n');
  });
});

describe('declared outputs of steps that run from an image of their own', () => {
  it('are read from a docker step and a kubernetes step, as from a shell step', async () => {
    await givenDag(
      ns,
      'image-outputs',
      `
steps:
  - id: boxed
    action: docker.run
    with:
      image: alpine:3
      command: sh -c 'echo "version=1.2" >> "$DAGU_OUTPUT_FILE"'
    outputs:
      - name: version
  - id: pod
    action: k8s.run
    with:
      image: alpine:3
      command: sh -c 'echo "zone=eu" >> "$DAGU_OUTPUT_FILE"'
    outputs:
      - name: zone
  - id: read
    depends: [boxed, pod]
    run: echo "\${steps.boxed.outputs.version} in \${steps.pod.outputs.zone}"
`,
    );
    await whenRun(ns, 'image-outputs-1', 'image-outputs');
    const done = await finishedRun(ns, 'image-outputs-1', 120_000);
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { boxed: 'succeeded', pod: 'succeeded', read: 'succeeded' },
    ]);
    expect(await stepLog(operator, done, 'read')).toBe('1.2 in eu\n');
  });
});
