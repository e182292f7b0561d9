import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const errorsOf = (yaml: string): string[] => loadDag(yaml, { fileName: 'example' }).errors.map(formatIssue);
const step = (body: string): string => `timeout_sec: 5\nsteps:\n  - name: s\n    ${body}`;

describe('wait.*, file.*, s3.* and archive.* steps when loaded', () => {
  it.each([
    ['a wait.duration with its duration', 'action: wait.duration\n    with: {duration: 5s}'],
    ['a wait.http whose url is known only per run', 'action: wait.http\n    with: {url: "${BASE}/health"}'],
    ['a file.write of empty content', 'action: file.write\n    with: {path: a, content: ""}'],
    ['a 2.x typed step naming the operation as its command', 'type: file\n    command: list\n    with: {path: .}'],
    ['an s3.upload whose bucket the DAG gives', 'action: s3.upload\n    with: {source: a.csv, key: a.csv}'],
    ['an s3.list with a key Dagu ignores', 'action: s3.list\n    with: {bucket: b, timeout: 3}'],
    ['an archive.extract with a key Dagu ignores', 'action: archive.extract\n    with: {source: a.zip, mode: fast}'],
    ['an archive.extract of a tar.xz', 'action: archive.extract\n    with: {source: a.tar.xz}'],
    ['an archive.list of a rar', 'action: archive.list\n    with: {source: a.rar, password: "${PW}"}'],
    ['an archive.create of a tbz2', 'action: archive.create\n    with: {source: s, destination: s.tbz2}'],
    ['an archive format known only per run', 'action: archive.list\n    with: {source: a.gz, format: "${FMT}"}'],
    [
      "an s3.list under the DAG's s3 block",
      'action: s3.list\n    with: {prefix: a/}\ns3: {endpoint: "${S3_URL}", force_path_style: true, bucket: b}',
    ],
  ])('accept %s', (_name, body) => {
    expect(errorsOf(step(body))).toEqual([]);
  });

  it.each([
    [
      'a required setting missing',
      'action: wait.file\n    with: {state: missing}',
      'steps[0].with.path: is required for wait.file',
    ],
    [
      'both settings of a copy missing',
      'action: file.copy\n    with: {recursive: true}',
      'steps[0].with.source: is required for file.copy',
    ],
    [
      'file.write without content',
      'action: file.write\n    with: {path: a}',
      'steps[0].with.content: is required for file.write',
    ],
    [
      'a key the action does not take',
      'action: wait.duration\n    with: {duration: 1s, timeout: 3}',
      'steps[0].with.timeout: wait.duration does not take with.timeout (it takes duration, until, path, state, url, method, status, headers, body, poll_interval, request_timeout)',
    ],
    [
      'an operation the executor lacks',
      'type: wait\n    command: forever\n    with: {duration: 1s}',
      'steps[0].command: the wait executor needs command, one of duration, until, file, http (the action wait.<operation>)',
    ],
    [
      'an s3 operation the executor lacks',
      'type: s3\n    command: copy\n    with: {bucket: b}',
      'steps[0].command: the s3 executor needs command, one of upload, download, list, delete (the action s3.<operation>)',
    ],
    [
      "a key the DAG's s3 block does not take",
      'action: s3.list\ns3: {bucket: b, prefix: a/}',
      's3.prefix: unknown key; known keys are region, endpoint, access_key_id, secret_access_key, session_token, profile, force_path_style, disable_ssl, bucket',
    ],
    [
      'an archive action without its source',
      'action: archive.list\n    with: {include: ["*.txt"]}',
      'steps[0].with.source: is required for archive.list',
    ],
    [
      'an archive format that is a bare compression',
      'action: archive.extract\n    with: {source: a.bin, format: XZ}',
      'steps[0].with.format: archive format "xz" (a compressed file, not an archive) is not supported by Kubedag: it reads and writes zip, tar, tar.gz, tar.zst, tar.bz2 and tar.xz, and reads 7z and rar',
    ],
    [
      'an archive named as a bare compression',
      'action: archive.list\n    with: {source: logs/app.log.gz}',
      'steps[0].with.source: archive format "gz" (a compressed file, not an archive) is not supported by Kubedag: it reads and writes zip, tar, tar.gz, tar.zst, tar.bz2 and tar.xz, and reads 7z and rar',
    ],
    [
      'an operation Dagu does not have',
      'action: file.chmod\n    with: {path: a}',
      'steps[0].action: unknown action "file.chmod"',
    ],
  ])('refuse %s', (_name, body, want) => {
    const errors = errorsOf(step(body));
    expect(errors.find((e) => e.startsWith(want.replace(/ \(Kubedag runs.*$/, '')))).toBeDefined();
  });

  it("accepts a Dagu 1.24 archive step, refused before, in that dialect's keys", () => {
    const yaml =
      'steps:\n  - name: s\n    command: create\n    executor: {type: archive, config: {source: site, destination: s.tgz, stripComponents: 1}}';
    expect(errorsOf(yaml)).toEqual([]);
  });

  it.each([
    [
      'a template.render with its template',
      'action: template.render\n    with: {template: "{{ .a }}", data: {a: 1}}',
      [],
    ],
    [
      'a template construct Kubedag does not render',
      'action: template.render\n    with: {template: "{{ template \\"x\\" }}"}',
      ["steps[0].script: template: parse error: {{template}} is not supported by Kubedag's template.render"],
    ],
    [
      'template_ref to a variable, read when the step runs',
      'action: template.render\n    with: {template_ref: "${env.TPL}"}',
      [],
    ],
    [
      'template_ref to a param',
      'action: template.render\n    with: {template_ref: "${params.TPL}"}\nparams: [{name: TPL, default: x}]',
      [],
    ],
    [
      "template_ref to a step's output",
      'action: template.render\n    with: {template_ref: "${steps.make.outputs.tpl}"}',
      [],
    ],
    [
      'template_ref to a constant, parsed when loaded as a written template',
      'action: template.render\n    with: {template_ref: "${consts.TPL}"}\nconsts: [{TPL: "{{ define \\"x\\" }}{{ end }}"}]',
      ["steps[0].script: template: parse error: {{define}} is not supported by Kubedag's template.render"],
    ],
    [
      'template_ref that is text, not a reference',
      'action: template.render\n    with: {template_ref: "Hello {{ .name }}"}',
      ['steps[0].with: with.template_ref must be one complete scoped value reference such as ${env.NAME}'],
    ],
    [
      'template_ref that is a reference inside text',
      'action: template.render\n    with: {template_ref: "x${env.TPL}"}',
      ['steps[0].with: with.template_ref must be one complete scoped value reference such as ${env.NAME}'],
    ],
    [
      'template_ref to an unscoped variable',
      'action: template.render\n    with: {template_ref: "${TPL}"}',
      ['steps[0].with: with.template_ref must be one complete scoped value reference such as ${env.NAME}'],
    ],
    [
      'template_ref that is not a string',
      'action: template.render\n    with: {template_ref: 3}',
      ['steps[0].with: with.template_ref must be one complete scoped value reference such as ${env.NAME}'],
    ],
    [
      'both a template and a reference',
      'action: template.render\n    with: {template: a, template_ref: "${env.TPL}"}',
      ['steps[0].with: template.render requires exactly one of with.template or with.template_ref'],
    ],
  ])('for template.render: %s', (_name, body, want) => {
    expect(errorsOf(step(body))).toEqual(want);
  });
});
