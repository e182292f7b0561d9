import { describe, expect, it } from 'vitest';
import { cniConfig, containerdConfig, kubeletConfig, kubeProxyConfig, nodePaths, NODE_IP } from './config.ts';
import { parseMountinfo } from './host.ts';

const paths = nodePaths('/x/cluster/real-node');

describe('the real node configuration', () => {
  it("keeps containerd's folders, socket and runc state in the node's folder, and restricts OOM scores", () => {
    const toml = containerdConfig(paths, {
      pauseImage: 'kubedag.local/pause:1',
      runc: '/usr/sbin/runc',
      cniBin: '/usr/lib/cni',
    });
    expect(toml).toContain('root = "/x/cluster/real-node/containerd/root"');
    expect(toml).toContain('address = "/x/cluster/real-node/containerd/containerd.sock"');
    expect(toml).toContain('Root = "/x/cluster/real-node/containerd/runc"');
    expect(toml).toContain('sandbox = "kubedag.local/pause:1"');
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('netns_mounts_under_state_dir = true');
    expect(toml).toMatch(/disabled_plugins = \[[^\]]*"io\.containerd\.internal\.v1\.opt"/);
  });

  it('configures the kubelet for cgroup v1 and cgroupfs under its own root, on the node address', () => {
    const config = JSON.parse(kubeletConfig(paths, { ca: '/ca.crt', cert: '/k.crt', key: '/k.key' })) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      cgroupRoot: '/kubedag-real-node',
      failSwapOn: false,
      oomScoreAdj: 0,
      address: NODE_IP,
      podLogsDir: '/x/cluster/real-node/pod-logs',
    });
    expect(config.containerRuntimeEndpoint).toBe('unix:///x/cluster/real-node/containerd/containerd.sock');
  });

  it('leaves the host-wide conntrack table alone in kube-proxy, and does not masquerade Pods', () => {
    expect(JSON.parse(kubeProxyConfig(paths))).toMatchObject({
      mode: 'iptables',
      conntrack: { maxPerCore: 0, min: 0 },
    });
    const cni = JSON.parse(cniConfig(paths)) as { plugins: { ipMasq?: boolean; ipam?: { dataDir: string } }[] };
    expect(cni.plugins[0]).toMatchObject({ ipMasq: false, ipam: { dataDir: '/x/cluster/real-node/cni/ipam' } });
  });

  it('reads mount points, escapes decoded', () => {
    const text =
      '36 25 0:32 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n99 1 0:4 net:[4026532] /x/a\\040b/netns rw shared:1 - nsfs nsfs rw\n';
    expect(parseMountinfo(text)).toEqual([
      { point: '/sys/fs/cgroup/memory', type: 'cgroup' },
      { point: '/x/a b/netns', type: 'nsfs' },
    ]);
  });
});
