import { describe, expect, it } from 'vitest';
import { parseMetrics, sampleValue } from './metrics.ts';

const TEXT = [
  '# HELP kubedag_dags_total DAG definitions.',
  '# TYPE kubedag_dags_total gauge',
  'kubedag_dags_total 12',
  'kubedag_info{version="1.2.3",build_date="2026-11-24",node_version="v24.1.0"} 1',
  'kubedag_dag_runs_total{status="succeeded"} 40',
  'kubedag_dag_runs_total{status="failed"} 3 1732406400000',
  'kubedag_label_escapes{path="a\\"b\\\\c"} 1',
  'this line is not a sample',
  'kubedag_broken{status="x"} many',
].join('\n');

describe('metrics in Prometheus text format', () => {
  const samples = parseMetrics(TEXT);

  it.each<[string, string, Record<string, string>, number | undefined]>([
    ['reads a sample without labels', 'kubedag_dags_total', {}, 12],
    ['finds a sample by its labels', 'kubedag_dag_runs_total', { status: 'failed' }, 3],
    ['answers nothing for a label value not there', 'kubedag_dag_runs_total', { status: 'canceled' }, undefined],
    ['skips a sample whose value is no number', 'kubedag_broken', {}, undefined],
  ])('%s', (_, name, labels, want) => {
    expect(sampleValue(samples, name, labels)).toBe(want);
  });

  it('reads labels, with their escapes', () => {
    expect([
      samples.find((s) => s.name === 'kubedag_info')?.labels.version,
      samples.find((s) => s.name === 'kubedag_label_escapes')?.labels.path,
    ]).toEqual(['1.2.3', 'a"b\\c']);
  });
});
