import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { load as parseYaml, loadAll } from 'js-yaml';
import { readBounded, type CliIo } from './io.ts';
import { helpGaps, runProgram } from '../test/settings-checks.ts';
import { CLI_COMMANDS, CLI_OPTIONS, commandUsage, runCli, USAGE } from './run.ts';

/** The fixture is ambiguous (no key of one dialect only), so validate says it was read as 1.x (core/dag/dialect-ambiguous.ts). */
const RUN_CHILD =
  '"run" is deprecated; use "call": this file has no key written only in Dagu 1.x or only in 2.x, so it is read as 1.x, as Dagu 1.24 reads it, and "run: child" calls the DAG "child"; a Dagu 2.x file runs "child" as a shell command (a key only 2.x writes, snake_case such as working_dir, makes the file 2.x)';

interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(...argv: string[]): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: readBounded };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

let dir = '';
const file = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubedag-cli-'));
  await writeFile(
    file('nightly.yaml'),
    'description: nightly job\nsteps:\n  - echo one\n  - run: child\n---\nname: child\nsteps: [echo child]\n',
  );
  await writeFile(file('broken.yaml'), 'steps:\n  - comand: echo\n  - {name: x, command: ls, depends: ghost}\n');
  await writeFile(file('Odd_Name.yml'), 'steps: [echo]\n');
  await writeFile(file('bad.name.yaml'), 'steps: [echo]\n');
  await writeFile(
    file('escape.yaml'),
    'kubernetes:\n  security_context: {run_as_user: 0}\n  volumes: [{name: host, hostPath: {path: /etc}}]\nsteps: [id]\n',
  );
});

describe('kubedag validate --policy', () => {
  it('refuses a DAG above the level, naming the field and the level, and exits 1', async () => {
    const got = await cli('validate', '--policy', 'baseline', file('escape.yaml'));
    expect(got).toEqual({
      code: 1,
      stdout: `${file('escape.yaml')}: kubernetes.volumes[host].hostPath: host paths are not allowed under pod policy "baseline"\n`,
      stderr: '',
    });
  });

  it('passes the same DAG at privileged, and without --policy', async () => {
    expect((await cli('validate', '--policy=privileged', file('escape.yaml'))).code).toBe(0);
    expect((await cli('validate', file('escape.yaml'))).code).toBe(0);
  });

  it('reports the root user under restricted in the JSON report', async () => {
    const got = await cli('validate', '--json', '--policy', 'restricted', file('escape.yaml'));
    const [report] = JSON.parse(got.stdout) as { valid: boolean; errors: string[] }[];
    expect([got.code, report?.valid, report?.errors]).toEqual([
      1,
      false,
      expect.arrayContaining([
        'kubernetes.securityContext.runAsUser: 0 (root) is not allowed under pod policy "restricted"',
      ]) as unknown,
    ]);
  });

  it('refuses an unknown level as a usage error, and --policy on other commands', async () => {
    expect((await cli('validate', '--policy', 'lax', file('escape.yaml'))).code).toBe(2);
    expect((await cli('render', '--policy', 'baseline', file('escape.yaml'))).stderr).toContain(
      'render takes no --policy',
    );
  });
});

describe('kubedag validate', () => {
  it('says each valid file is valid and exits 0', async () => {
    const got = await cli('validate', file('nightly.yaml'));
    expect(got).toEqual({
      code: 0,
      stdout: `${file('nightly.yaml')}: warning: steps[1].run: ${RUN_CHILD}\n${file('nightly.yaml')}: valid\n`,
      stderr: '',
    });
  });

  it('prints file: path: message for every problem and exits 1', async () => {
    const got = await cli('validate', file('nightly.yaml'), file('broken.yaml'));
    expect(got.code).toBe(1);
    expect(got.stdout.split('\n')).toContain(
      `${file('broken.yaml')}: steps[0].comand: unknown key; did you mean "command"?`,
    );
    expect(got.stdout.split('\n')).toContain(`${file('broken.yaml')}: steps[1].depends: unknown step "ghost"`);
  });

  it('exits 2 when a file cannot be read, after checking the others', async () => {
    const got = await cli('validate', file('missing.yaml'), file('nightly.yaml'));
    expect(got.code).toBe(2);
    expect(got.stdout).toContain(`${file('missing.yaml')}: cannot read: no such file`);
    expect(got.stdout).toContain(`${file('nightly.yaml')}: valid`);
  });

  it('prints one JSON array in input order with the POST /dags/validate shape plus file', async () => {
    const got = await cli('validate', '--json', file('broken.yaml'), file('nightly.yaml'));
    expect(got.code).toBe(1);
    const reports = JSON.parse(got.stdout) as {
      file: string;
      valid: boolean;
      errors: string[];
      dag: { name: string; steps: unknown[] };
    }[];
    expect(reports.map((r) => [r.file, r.valid, r.dag.name])).toEqual([
      [file('broken.yaml'), false, 'broken'],
      [file('nightly.yaml'), true, 'nightly'],
    ]);
    expect(reports[0]?.errors).toEqual([
      'steps[0].comand: unknown key; did you mean "command"?',
      'steps[1].depends: unknown step "ghost"',
    ]);
    expect(reports[0]?.dag.steps).toHaveLength(1);
  });

  it('reports an unreadable file in JSON with a null dag', async () => {
    const got = await cli('validate', '--json', file('missing.yaml'));
    expect(got.code).toBe(2);
    expect(JSON.parse(got.stdout)).toEqual([
      { file: file('missing.yaml'), valid: false, errors: ['cannot read: no such file'], warnings: [], dag: null },
    ]);
  });

  it('reports a directory as unreadable', async () => {
    expect((await cli('validate', dir)).code).toBe(2);
  });
});

describe('kubedag render', () => {
  it('prints a DAG manifest with the DNS name, file-name label and spec as written', async () => {
    const got = await cli('render', '--namespace', 'team-a', file('nightly.yaml'));
    expect(got.code).toBe(0);
    expect(parseYaml(got.stdout)).toEqual({
      apiVersion: 'kubedag.io/v1alpha1',
      kind: 'DAG',
      metadata: {
        name: 'nightly',
        namespace: 'team-a',
        labels: { 'kubedag.io/file-name': 'nightly' },
        annotations: { 'kubedag.io/file-name': 'nightly' },
      },
      spec: {
        description: 'nightly job',
        steps: ['echo one', { run: 'child' }],
        localDags: [{ name: 'child', steps: ['echo child'] }],
      },
    });
    expect(got.stderr).toBe(`${file('nightly.yaml')}: warning: steps[1].run: ${RUN_CHILD}\n`);
  });

  it('maps a file name that is not a DNS label and separates several manifests', async () => {
    const got = await cli('render', file('Odd_Name.yml'), file('nightly.yaml'));
    const docs = loadAll(got.stdout) as { metadata: { name: string; annotations: Record<string, string> } }[];
    expect(docs.map((d) => d.metadata.annotations['kubedag.io/file-name'])).toEqual(['Odd_Name', 'nightly']);
    expect(docs[0]?.metadata.name).toMatch(/^odd-name-[0-9a-f]{8}$/);
  });

  it('prints nothing on stdout and exits 1 when any file is invalid', async () => {
    const got = await cli('render', file('nightly.yaml'), file('broken.yaml'));
    expect(got.code).toBe(1);
    expect(got.stdout).toBe('');
    expect(got.stderr).toContain(`${file('broken.yaml')}: steps[0].comand: unknown key; did you mean "command"?`);
  });

  it('keeps the kubernetes block and the Dagu 2.x Kubernetes executor form as written', async () => {
    const fixture = join(import.meta.dirname, '../test/fixtures/dags/k8s-feature-train.yaml');
    const got = await cli('render', fixture);
    expect(got.code).toBe(0);
    expect((parseYaml(got.stdout) as { spec: unknown }).spec).toEqual(parseYaml(await readFile(fixture, 'utf8')));
  });

  it('refuses a file name the API could not address', async () => {
    const got = await cli('render', file('bad.name.yaml'));
    expect(got.code).toBe(1);
    expect(got.stderr).toContain('file name "bad.name" must match');
  });
});

describe('kubedag usage', () => {
  const cases: { name: string; argv: string[]; stderr: RegExp }[] = [
    { name: 'no command', argv: [], stderr: /Usage: kubedag/ },
    { name: 'an unknown command', argv: ['frobnicate'], stderr: /unknown command "frobnicate"/ },
    { name: 'validate without files', argv: ['validate'], stderr: /validate needs at least one FILE/ },
    { name: 'an unknown option', argv: ['validate', '--yaml', 'x'], stderr: /Unknown option '--yaml'/ },
    { name: 'render with --json', argv: ['render', '--json', 'x'], stderr: /render takes no --json/ },
    { name: 'schema with arguments', argv: ['schema', 'x'], stderr: /schema takes no arguments/ },
  ];
  it.each(cases)('exits 2 for $name', async ({ argv, stderr }) => {
    const got = await cli(...argv);
    expect(got.code).toBe(2);
    expect(got.stdout).toBe('');
    expect(got.stderr).toMatch(stderr);
  });

  it('prints help on request and exits 0', async () => {
    const got = await cli('--help');
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/^Usage: kubedag/);
  });

  it('lists every command and option with its default in --help', async () => {
    const got = await cli('--help');
    expect(helpGaps(got.stdout, CLI_OPTIONS)).toEqual([]);
    for (const command of CLI_COMMANDS) expect(got.stdout).toContain(`  ${command.name} `);
  });

  it.each(CLI_COMMANDS)(
    'answers `$name --help` with its usage and its options with their defaults, and exits 0',
    async (command) => {
      const got = await cli(command.name, '--help');
      expect(got).toEqual({ code: 0, stdout: commandUsage(command), stderr: '' });
      expect(got.stdout).toMatch(new RegExp(`^Usage: kubedag ${command.name}`));
      const options = Object.fromEntries(command.options.map((name) => [name, CLI_OPTIONS[name]]));
      expect(helpGaps(got.stdout, options)).toEqual([]);
      for (const other of Object.keys(CLI_OPTIONS).filter(
        (name) => !(command.options as readonly string[]).includes(name),
      ))
        expect(got.stdout).not.toContain(`--${other}`);
    },
  );

  it('answers --help as a program, from the sources', () => {
    const ran = runProgram('cli/main.ts', ['--help'], {});
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([0, USAGE, '']);
  });

  it('prints the JSON Schema', async () => {
    const got = await cli('schema');
    expect(got.code).toBe(0);
    // Either dialect: a 1.x or a 2.x document (docs/decisions/2026-11-29-dagu-2x-schema.md).
    const schema = JSON.parse(got.stdout) as { title: string; anyOf: unknown[]; definitions: Record<string, unknown> };
    expect(schema).toMatchObject({
      title: 'Kubedag DAG file',
      anyOf: [{ $ref: '#/definitions/dag' }, { $ref: '#/definitions/dag2x' }],
      definitions: { dag: { type: 'object' }, dag2x: { type: 'object' } },
    });
  });
});
