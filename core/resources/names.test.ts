import { describe, expect, it } from 'vitest';
import { dagManifest } from './dag.ts';
import { dagResourceName, fileNameOf, isLabelValue } from './names.ts';

describe('dagResourceName', () => {
  const cases = [
    { name: 'keeps a valid DNS-1123 label as it is', fileName: 'nightly-etl', want: 'nightly-etl' },
    {
      name: 'hashes a name with underscores after lower-casing it',
      fileName: 'Nightly_ETL',
      want: /^nightly-etl-[0-9a-f]{8}$/,
    },
    { name: 'hashes a name that starts with a dash', fileName: '-x', want: /^x-[0-9a-f]{8}$/ },
    { name: 'gives a name to one made only of underscores', fileName: '___', want: /^dag-[0-9a-f]{8}$/ },
    { name: 'keeps long names within 63 characters', fileName: 'A'.repeat(120), want: /^a{54}-[0-9a-f]{8}$/ },
  ];
  it.each(cases)('$name', ({ fileName, want }) => {
    const got = dagResourceName(fileName);
    if (typeof want === 'string') expect(got).toBe(want);
    else expect(got).toMatch(want);
    expect(got.length).toBeLessThanOrEqual(63);
  });

  it('never maps two different file names to one resource name', () => {
    const names = ['my_dag', 'my-dag', 'My-Dag', 'MY_DAG', 'my__dag'].map(dagResourceName);
    expect(new Set(names).size).toBe(names.length);
  });

  it('is deterministic', () => {
    expect(dagResourceName('Report_2026')).toBe(dagResourceName('Report_2026'));
  });
});

describe('file names', () => {
  it('drop the directory and the last extension', () => {
    expect(fileNameOf('/dags/nightly.yaml')).toBe('nightly');
    expect(fileNameOf('a.b.yml')).toBe('a.b');
    expect(fileNameOf('.hidden')).toBe('.hidden');
  });

  it('are label values only when Kubernetes accepts them', () => {
    expect(isLabelValue('my_dag-1')).toBe(true);
    expect(isLabelValue('_x')).toBe(false);
    expect(isLabelValue('a'.repeat(64))).toBe(false);
  });
});

describe('dagManifest', () => {
  it('puts local DAGs under spec.localDags and labels the file name', () => {
    expect(dagManifest('my_dag', [{ steps: ['echo'] }, { name: 'child', steps: ['echo'] }], 'team')).toEqual({
      apiVersion: 'kubedag.io/v1alpha1',
      kind: 'DAG',
      metadata: {
        name: dagResourceName('my_dag'),
        namespace: 'team',
        labels: { 'kubedag.io/file-name': 'my_dag' },
        annotations: { 'kubedag.io/file-name': 'my_dag' },
      },
      spec: { steps: ['echo'], localDags: [{ name: 'child', steps: ['echo'] }] },
    });
  });

  it('omits the label when the file name cannot be one', () => {
    expect(dagManifest('_odd', [{ steps: ['echo'] }]).metadata.labels).toEqual({});
  });
});
