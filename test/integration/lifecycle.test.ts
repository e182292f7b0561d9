import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, inject, it } from 'vitest';
import { startCluster, stopCluster } from '../../cluster/cluster.ts';
import { readState } from '../../cluster/controlplane.ts';
import { readLedger } from '../../cluster/node-agent/ledger.ts';
import { isAlive } from '../../cluster/processes.ts';
import { kubeConfig } from '../../cluster/setup.ts';
import { pod } from '../builders/pod.ts';
import { running, waitForPod } from './support.ts';

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => {
      resolve(true);
    });
  });

describe('a second local control plane', () => {
  it('starts beside the suite cluster and, when stopped, leaves no process, Pod process or port behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubedag-lifecycle-'));
    try {
      const state = await startCluster({ dir, binaries: inject('binaries'), nodes: [{ name: 'lifecycle-node' }] });
      const core = kubeConfig(state.kubeconfig).makeApiClient(CoreV1Api);
      await core.createNamespacedPod({ namespace: 'default', body: pod('sleeper').shell('sleep 600').build() });
      await waitForPod(core, { namespace: 'default', name: 'sleeper' }, 'to run', running);
      const podPid = readLedger(state.nodes[0]?.ledger ?? '').find((e) => e.event === 'start')?.pid ?? -1;
      expect(isAlive(podPid)).toBe(true);

      await stopCluster(state);

      expect(state.processes.filter((p) => isAlive(p.pid)).map((p) => p.name)).toEqual([]);
      expect(isAlive(podPid)).toBe(false);
      expect(await refused(Number(new URL(state.server).port))).toBe(true);
      expect(await refused(state.nodes[0]?.port ?? 0)).toBe(true);
      expect(await readState(dir)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
