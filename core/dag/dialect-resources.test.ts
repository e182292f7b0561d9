import { describe, expect, it } from 'vitest';
import { cpuMillis, memoryBytes } from './dialect-resources.ts';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);

describe('resources: Dagu quantities read by its rules', () => {
  it.each([
    ['500m', 500],
    ['2', 2000],
    [' 1.5 ', 1500],
    ['0.001', 1],
    ['1.0001', '"1.0001" is not a CPU amount such as 500m, 2 or 1.5'],
    ['0', 'must be greater than zero'],
    ['0m', 'must be greater than zero'],
    ['1e3', '"1e3" is not a CPU amount such as 500m, 2 or 1.5'],
  ])('cpu %j is %j', (text, want) => {
    expect(cpuMillis(text)).toBe(want);
  });

  it.each([
    ['512m', 512_000_000], // Dagu's m is mega; Kubernetes' is milli
    ['512MB', 512_000_000],
    ['512Mi', 536_870_912],
    ['1gib', 1_073_741_824],
    ['1.5Ki', 1536],
    ['100', 100],
    ['2b', 2],
    ['1x', '"1x" is not a memory amount such as 512Mi, 2G or 1gib'],
    ['-1', '"-1" is not a memory amount such as 512Mi, 2G or 1gib'],
    ['0Gi', 'must be greater than zero'],
  ])('memory %j is %j', (text, want) => {
    expect(memoryBytes(text)).toBe(want);
  });
});

describe('resources: the limits of every step Pod', () => {
  it('become the DAG-level kubernetes limits, as Kubernetes quantities, beside what the block sets', () => {
    const got = load(
      'resources: {limits: {cpu: 1.5, memory: 2G}}\nkubernetes: {resources: {requests: {cpu: 250m}}}\nsteps:\n  - {name: a, run: echo}',
    );
    expect(got.errors).toEqual([]);
    expect(got.dag.kubernetes?.resources).toEqual({
      requests: { cpu: '250m' },
      limits: { cpu: '1500m', memory: '2000000000' },
    });
  });

  it.each([
    {
      yaml: 'resources: {limits: {cpu: 2}}\nkubernetes: {resources: {limits: {cpu: 1}}}',
      want: ['resources.limits.cpu: kubernetes.resources.limits.cpu sets it already; write the limit once'],
    },
    {
      yaml: 'resources: {requests: {cpu: 1}, limits: {gpu: 1, memory: [1]}}',
      want: [
        'resources.requests: is not a resources key (resources takes limits: {cpu, memory})',
        'resources.limits.gpu: is not a limit Dagu takes (limits takes cpu and memory)',
        'resources.limits.memory: must be a string or a number',
      ],
    },
    { yaml: 'resources: 2', want: ['resources: must be a mapping: {limits: {cpu, memory}}'] },
    { yaml: 'resources: {limits: {cpu: 0.0001}}', want: [expect.stringMatching(/^resources\.limits\.cpu: "0\.0001"/)] },
  ])('refuses $yaml', ({ yaml, want }) => {
    expect(errorsOf(`${yaml}\nsteps:\n  - {name: a, run: echo}`)).toEqual(want);
  });

  it('a limit below its request is the kubernetes check’s error', () => {
    expect(
      errorsOf('resources: {limits: {memory: 1Mi}}\nkubernetes: {resources: {requests: {memory: 1Gi}}}\nsteps: [echo]'),
    ).toEqual([expect.stringMatching(/1Gi is more than the limit 1048576$/)]);
  });
});

describe('what Kubedag deliberately does not run says why', () => {
  it.each([
    ['webhook: {forward_headers: [X-Request-Id]}', 'webhook: ', 'Kubedag serves no DAG webhooks'],
    ['redis: {url: "redis://r:6379"}', 'redis: ', 'redis-cli in a container step'],
    ['steps:\n  - {name: s, action: postgres.query, with: {query: "select 1"}}', 'steps[0].action: ', 'psql'],
    ['steps:\n  - {name: s, action: sqlite.import, with: {a: 1}}', 'steps[0].action: ', 'sqlite3'],
    ['steps:\n  - {name: s, action: redis.get, with: {key: a}}', 'steps[0].action: ', 'redis-cli'],
    ['steps:\n  - {name: s, action: sftp.download, with: {a: 1}}', 'steps[0].action: ', 'scp'],
    ['steps:\n  - {name: s, action: state.set, with: {key: a}}', 'steps[0].action: ', 'keeps no key-value store'],
    ['steps:\n  - {name: s, action: data.convert, with: {from: json}}', 'steps[0].action: ', 'jq.filter'],
    ['steps:\n  - {name: s, action: git.checkout, with: {repository: r}}', 'steps[0].action: ', 'alpine/git'],
    ['steps:\n  - {id: s, type: state, with: {a: 1}, timeout_sec: 5}', 'steps[0].type: ', 'keeps no key-value store'],
    ['steps:\n  - {id: s, type: sqlite, with: {a: 1}, timeout_sec: 5}', 'steps[0].type: ', 'sqlite3'],
  ])('%s', (yaml, at, reason) => {
    const errors = errorsOf(yaml.startsWith('steps') ? yaml : `${yaml}\nsteps:\n  - {name: a, run: echo}`);
    expect(errors).toEqual([expect.stringContaining(reason) as string]);
    expect(errors[0]).toMatch(new RegExp(`^${at.replace(/[[\].]/g, '\\$&')}Dagu 2\\.x feature .* is not supported: `));
  });
});

describe('http settings Dagu 2.x added', () => {
  it('form, files, format and output reach the step runner as written', () => {
    const got = load(
      'steps:\n  - name: s\n    action: http.request\n    with: {method: POST, url: "https://x", form: {a: "1"}, files: {f: in.csv}, format: json, output: out.json}',
    );
    expect(got.errors).toEqual([]);
    expect(got.dag.steps[0]?.executor.config).toEqual({
      form: { a: '1' },
      files: { f: 'in.csv' },
      format: 'json',
      output: 'out.json',
    });
  });
});
