/**
 * The real node's programs built from Go modules into the per-user cache like the control plane
 * (../binaries.ts), keyed by version: kubelet and kube-proxy from the same k8s.io/kubernetes as
 * the control plane (pinned apart in tools/kubernetes-node, so that the control plane's build
 * never changes), and containerd v2 with its runc shim and ctr (tools/containerd). runc and the
 * CNI plugins come from Debian (scripts/ensure-real-node.sh).
 */
import { ensureGroups, kubernetesLdflags, type BuildOptions, type Group } from '../binaries.ts';

export interface NodeBinaries {
  readonly kubelet: string;
  readonly kubeProxy: string;
  readonly containerd: string;
  readonly containerdShim: string;
  readonly ctr: string;
}

export const NODE_GROUPS: readonly Group[] = [
  {
    name: 'kubernetes',
    cache: 'kubernetes-node',
    module: 'kubernetes-node',
    packages: { kubelet: 'k8s.io/kubernetes/cmd/kubelet', 'kube-proxy': 'k8s.io/kubernetes/cmd/kube-proxy' },
    ldflags: kubernetesLdflags,
  },
  {
    name: 'containerd',
    module: 'containerd',
    packages: {
      containerd: 'github.com/containerd/containerd/v2/cmd/containerd',
      'containerd-shim-runc-v2': 'github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2',
      ctr: 'github.com/containerd/containerd/v2/cmd/ctr',
    },
    // Without cgo the btrfs snapshotter (the only part that needs it) is left out by its build tag.
    ldflags: (version) => [
      `-X github.com/containerd/containerd/v2/version.Version=${version}`,
      '-X github.com/containerd/containerd/v2/version.Package=kubedag.local/containerd',
    ],
  },
];

/** The real node's binaries, building what the cache lacks (minutes the first time). */
export async function ensureNodeBinaries(options: BuildOptions = {}): Promise<NodeBinaries> {
  const paths = await ensureGroups(NODE_GROUPS, options);
  return {
    kubelet: paths.kubelet ?? '',
    kubeProxy: paths['kube-proxy'] ?? '',
    containerd: paths.containerd ?? '',
    containerdShim: paths['containerd-shim-runc-v2'] ?? '',
    ctr: paths.ctr ?? '',
  };
}
