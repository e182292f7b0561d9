/**
 * Dagu 2.x's archive.* and template.render actions on the local control plane (issue 26).
 * archive.*: steps of one run write
 * files on the run's workspace, pack them into a tar.gz and a zip, list one, and unpack both
 * elsewhere (stripping the top folder, leaving out what exclude names); a later shell step
 * reads what came back, and an archive whose entry climbs out of its destination fails its
 * step without writing there; tar.xz and tar.bz2 (7-Zip's WebAssembly in the step runner)
 * both ways. template.render: a template over data with a run's variable, to stdout and to a
 * file a later step reads; with.template_ref naming a variable or a param, resolved when the
 * step runs, and one whose template Kubedag does not render failing its step then.
 */
import { describe, expect, it } from 'vitest';
import {
  finishedRun,
  givenDag,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('dialect-archive', (made) => ({ ns, operator } = made));

describe('a Dagu 2.x DAG with archive.* and template.render actions', () => {
  it('creates, lists and extracts tar.gz and zip archives on the workspace, and refuses a zip-slip', async () => {
    await givenDag(
      ns,
      'archives',
      `
type: chain
steps:
  - name: make
    run: mkdir -p site/docs && echo home > site/index.html && echo guide > site/docs/guide.txt && echo x > site/docs/debug.log
  - name: pack
    action: archive.create
    with: {source: site, destination: out/site.tar.gz}
  - name: zip
    action: archive.create
    with: {source: site, destination: out/site.zip, exclude: ["**/*.log"]}
  - name: list
    action: archive.list
    with: {source: out/site.zip, include: ["**/*.txt", "**/*.html"]}
  - name: unpack
    action: archive.extract
    with: {source: out/site.tar.gz, destination: restored, strip_components: 1, exclude: ["**/*.log"]}
  - name: unzip
    action: archive.extract
    with: {source: out/site.zip, destination: unzipped}
  - name: check
    run: cat restored/index.html restored/docs/guide.txt unzipped/site/docs/guide.txt; ls restored/docs
  - name: hostile
    run: mkdir -p evil && cd evil && echo pwned > ../outside.txt && tar -P -cf ../evil.tar ../outside.txt && rm ../outside.txt
  - name: slip
    action: archive.extract
    with: {source: evil.tar, destination: jail}
    continue_on: {failure: true}
  - name: after
    run: test ! -e outside.txt && echo nothing escaped
`,
    );
    await whenRun(ns, 'archives-1', 'archives');
    const done = await finishedRun(ns, 'archives-1', 120_000);
    expect(stepStates(done)).toMatchObject({
      make: 'succeeded',
      pack: 'succeeded',
      zip: 'succeeded',
      list: 'succeeded',
      unpack: 'succeeded',
      unzip: 'succeeded',
      check: 'succeeded',
      slip: 'failed',
      after: 'succeeded',
    });
    const json = async (step: string) =>
      JSON.parse((await stepLog(operator, done, step)) ?? '{}') as Record<string, unknown>;
    expect(await json('pack')).toMatchObject({ operation: 'create', filesAdded: 5 });
    expect(((await json('list')).files as { path: string }[]).map((f) => f.path)).toEqual([
      'site/docs/guide.txt',
      'site/index.html',
    ]);
    expect(await json('unpack')).toMatchObject({ filesExtracted: 2, filesSkipped: 1 });
    expect(await stepLog(operator, done, 'check')).toBe('home\nguide\nguide\nguide.txt\n');
    expect(await stepLog(operator, done, 'slip', 'stderr')).toContain(
      'archive: corrupted archive: target "../outside.txt" escapes destination',
    );
    expect(await stepLog(operator, done, 'after')).toBe('nothing escaped\n');
  });

  it('renders a template.render step to stdout and to a file that a later step reads', async () => {
    await givenDag(
      ns,
      'render',
      `
type: chain
env:
  - TEAM: data
steps:
  - name: conf
    action: template.render
    with:
      template: |
        {{- range $i, $h := .hosts }}
        host{{ $i }} = {{ $h | upper }}
        {{- end }}
        team = {{ .team }}
      data: {hosts: [db1, db2], team: "\${TEAM}"}
      output: out/app.conf
  - name: show
    run: cat out/app.conf
  - name: say
    action: template.render
    with: {template: "{{ if .ok }}ready{{ else }}wait{{ end }}", data: {ok: true}}
`,
    );
    await whenRun(ns, 'render-1', 'render');
    const done = await finishedRun(ns, 'render-1', 120_000);
    expect(stepStates(done)).toEqual({ conf: 'succeeded', show: 'succeeded', say: 'succeeded' });
    expect(await stepLog(operator, done, 'show')).toBe('\nhost0 = DB1\nhost1 = DB2\nteam = data\n');
    // The template writes no newline; the step's log, kept line by line as a Pod's is, ends its last line.
    expect(await stepLog(operator, done, 'say')).toBe('ready\n');
  });

  it('packs and unpacks tar.xz and tar.bz2 on the workspace', async () => {
    await givenDag(
      ns,
      'compressed',
      `
type: chain
steps:
  - name: make
    run: mkdir -p site/docs && echo home > site/index.html && echo guide > site/docs/guide.txt
  - name: xz
    action: archive.create
    with: {source: site, destination: out/site.tar.xz}
  - name: bz2
    action: archive.create
    with: {source: site, destination: out/site.tbz2, compression_level: 9, verify_integrity: true}
  - name: list
    action: archive.list
    with: {source: out/site.tar.xz, include: ["**/*.txt"]}
  - name: unxz
    action: archive.extract
    with: {source: out/site.tar.xz, destination: from-xz, strip_components: 1}
  - name: unbz2
    action: archive.extract
    with: {source: out/site.tbz2, destination: from-bz2}
  - name: check
    run: cat from-xz/index.html from-bz2/site/docs/guide.txt
`,
    );
    await whenRun(ns, 'compressed-1', 'compressed');
    const done = await finishedRun(ns, 'compressed-1', 120_000);
    expect(Object.values(stepStates(done))).toEqual(Array(7).fill('succeeded'));
    const json = async (step: string) =>
      JSON.parse((await stepLog(operator, done, step)) ?? '{}') as Record<string, unknown>;
    expect(await json('bz2')).toMatchObject({ operation: 'create', filesAdded: 4, verifyPerformed: true });
    expect(((await json('list')).files as { path: string }[]).map((f) => f.path)).toEqual(['site/docs/guide.txt']);
    expect(await json('unxz')).toMatchObject({ filesExtracted: 2 });
    expect(await stepLog(operator, done, 'check')).toBe('home\nguide\n');
  });

  it('renders the template with.template_ref names when the step runs, and fails a step whose template it cannot render', async () => {
    await givenDag(
      ns,
      'template-ref',
      `
type: chain
params:
  - name: GREETING
    default: "hi {{ .who }}"
env:
  - PAGE: "<h1>{{ .title | upper }}</h1>"
  - BAD: '{{ define "x" }}{{ end }}'
steps:
  - name: page
    action: template.render
    with: {template_ref: "\${env.PAGE}", data: {title: home}, output: out/index.html}
  - name: show
    run: cat out/index.html
  - name: greet
    action: template.render
    with: {template_ref: "\${params.GREETING}", data: {who: ops}}
  - name: bad
    action: template.render
    with: {template_ref: "\${env.BAD}"}
    continue_on: {failure: true}
`,
    );
    await whenRun(ns, 'template-ref-1', 'template-ref');
    const done = await finishedRun(ns, 'template-ref-1', 120_000);
    expect(stepStates(done)).toEqual({ page: 'succeeded', show: 'succeeded', greet: 'succeeded', bad: 'failed' });
    expect(await stepLog(operator, done, 'show')).toBe('<h1>HOME</h1>\n');
    expect(await stepLog(operator, done, 'greet')).toBe('hi ops\n');
    expect(await stepLog(operator, done, 'bad', 'stderr')).toContain(
      "template: parse error: {{define}} is not supported by Kubedag's template.render",
    );
  });
});
