import { describe, expect, it } from 'vitest';
import { mergeKubernetes } from './kubernetes-merge.ts';
import type { DagKubernetesSettings, KubernetesSettings } from './kubernetes-model.ts';

describe("mergeKubernetes puts a step's own settings over the DAG-level defaults", () => {
  const cases: {
    name: string;
    defaults?: DagKubernetesSettings;
    own?: KubernetesSettings;
    want: KubernetesSettings | undefined;
  }[] = [
    { name: 'nothing at either level gives no settings', want: undefined },
    { name: 'an empty block at either level gives no settings', defaults: {}, own: {}, want: undefined },
    { name: "defaults alone are the step's settings", defaults: { image: 'base:1' }, want: { image: 'base:1' } },
    { name: "own settings alone are the step's settings", own: { image: 'tool:2' }, want: { image: 'tool:2' } },
    {
      name: 'the step wins for a text',
      defaults: { image: 'base:1', serviceAccountName: 'runner' },
      own: { image: 'tool:2' },
      want: { image: 'tool:2', serviceAccountName: 'runner' },
    },
    {
      name: 'mappings merge key by key at every depth',
      defaults: { resources: { requests: { cpu: '1', memory: '1Gi' } } },
      own: { resources: { requests: { memory: '4Gi' }, limits: { memory: '8Gi' } } },
      want: { resources: { requests: { cpu: '1', memory: '4Gi' }, limits: { memory: '8Gi' } } },
    },
    {
      name: 'lists are replaced whole, env included',
      defaults: {
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
      own: { env: [{ name: 'B', value: '3' }] },
      want: { env: [{ name: 'B', value: '3' }] },
    },
    {
      name: "an empty mapping written by the step clears the DAG's",
      defaults: { labels: { team: 'ml' }, image: 'base:1' },
      own: { labels: {} },
      want: { labels: {}, image: 'base:1' },
    },
    {
      name: 'the workspace stays with the run',
      defaults: { image: 'base:1', workspace: { enabled: true, size: '1Gi' } },
      want: { image: 'base:1' },
    },
  ];
  it.each(cases)('$name', ({ defaults, own, want }) => {
    expect(mergeKubernetes(defaults, own)).toEqual(want);
  });

  it('changes neither input', () => {
    const defaults: DagKubernetesSettings = Object.freeze({ nodeSelector: Object.freeze({ pool: 'a' }) });
    const own: KubernetesSettings = Object.freeze({ nodeSelector: Object.freeze({ zone: 'b' }) });
    expect(mergeKubernetes(defaults, own)).toEqual({ nodeSelector: { pool: 'a', zone: 'b' } });
    expect([defaults, own]).toEqual([{ nodeSelector: { pool: 'a' } }, { nodeSelector: { zone: 'b' } }]);
  });
});
