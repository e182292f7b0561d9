/**
 * The real node's configuration files as pure functions: where everything lives (one folder per
 * cluster, so that stopping it removes it), containerd's, the kubelet's, kube-proxy's and the
 * CNI bridge's. Addresses are those of the node's own network namespace (netns.ts): nothing in
 * it routes anywhere else.
 */
import { join } from 'node:path';

export const NODE_NAME = 'kubedag-real-node';
/** The node's address, on a veth whose peer is in the same namespace. */
export const NODE_IP = '10.250.0.2';
export const NODE_PREFIX = 24;
export const POD_CIDR = '10.244.0.0/24';
export const CLUSTER_CIDR = '10.244.0.0/16';
export const SERVICE_CIDR = '10.96.0.0/16';
/** The cgroup (in every v1 hierarchy) the kubelet puts kubepods under. */
export const CGROUP_ROOT = 'kubedag-real-node';
export const KUBELET_PORT = 10250;

export interface NodePaths {
  readonly dir: string;
  readonly state: string;
  /** The network namespace, bind-mounted on a file. */
  readonly netns: string;
  readonly containerdRoot: string;
  readonly containerdState: string;
  readonly containerdConfig: string;
  readonly containerdSocket: string;
  readonly runcRoot: string;
  readonly kubeletRoot: string;
  readonly kubeletConfig: string;
  readonly kubeletKubeconfig: string;
  readonly podLogs: string;
  readonly cniConf: string;
  readonly cniIpam: string;
  readonly kubeProxyConfig: string;
  readonly kubeProxyKubeconfig: string;
  readonly pki: string;
}

/** Everything of the real node under `dir` (the cluster's `real-node` folder). */
export function nodePaths(dir: string): NodePaths {
  return {
    dir,
    state: join(dir, 'real-node.json'),
    netns: join(dir, 'netns'),
    containerdRoot: join(dir, 'containerd/root'),
    containerdState: join(dir, 'containerd/state'),
    containerdConfig: join(dir, 'containerd/config.toml'),
    containerdSocket: join(dir, 'containerd/containerd.sock'),
    runcRoot: join(dir, 'containerd/runc'),
    kubeletRoot: join(dir, 'kubelet'),
    kubeletConfig: join(dir, 'kubelet-config.yaml'),
    kubeletKubeconfig: join(dir, 'kubelet.kubeconfig'),
    podLogs: join(dir, 'pod-logs'),
    cniConf: join(dir, 'cni/net.d'),
    cniIpam: join(dir, 'cni/ipam'),
    kubeProxyConfig: join(dir, 'kube-proxy-config.yaml'),
    kubeProxyKubeconfig: join(dir, 'kube-proxy.kubeconfig'),
    pki: join(dir, 'pki'),
  };
}

const quote = (text: string): string => JSON.stringify(text);

/**
 * containerd v2's configuration (version 3): its folders, socket and runc state under the
 * node's folder; plugins that would write elsewhere on the host (/opt/containerd, NRI) off;
 * Pod network namespaces under its state folder instead of /var/run/netns; the pause image as
 * built here; `restrict_oom_score_adj`, without which runc fails every sandbox on a machine
 * without CAP_SYS_RESOURCE ("can't get final child's PID from pipe: EOF").
 */
export function containerdConfig(
  paths: NodePaths,
  options: { readonly pauseImage: string; readonly runc: string; readonly cniBin: string },
): string {
  return `version = 3
root = ${quote(paths.containerdRoot)}
state = ${quote(paths.containerdState)}
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.nri.v1.nri", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.blockfile", "io.containerd.snapshotter.v1.erofs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = ${quote(paths.containerdSocket)}

[ttrpc]
  address = ${quote(`${paths.containerdSocket}.ttrpc`)}

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"

[plugins.'io.containerd.cri.v1.images'.pinned_images]
  sandbox = ${quote(options.pauseImage)}

[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  cdi_spec_dirs = []

[plugins.'io.containerd.cri.v1.runtime'.cni]
  bin_dirs = [${quote(options.cniBin)}]
  conf_dir = ${quote(paths.cniConf)}

[plugins.'io.containerd.cri.v1.runtime'.containerd]
  default_runtime_name = "runc"

[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  BinaryName = ${quote(options.runc)}
  Root = ${quote(paths.runcRoot)}
  SystemdCgroup = false

[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = "127.0.0.1"
`;
}

/**
 * The kubelet's KubeletConfiguration (JSON is YAML): what the probe of issue 25 found it needs on
 * these machines (cgroup v1 allowed, cgroupfs, swap tolerated, its own OOM score left alone),
 * its folders under the node's, clients authenticated by the cluster's CA, and eviction set so
 * low that a busy shared disk does not taint the node.
 */
export function kubeletConfig(
  paths: NodePaths,
  tls: { readonly ca: string; readonly cert: string; readonly key: string },
): string {
  return `${JSON.stringify(
    {
      kind: 'KubeletConfiguration',
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      address: NODE_IP,
      port: KUBELET_PORT,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort: 10248,
      tlsCertFile: tls.cert,
      tlsPrivateKeyFile: tls.key,
      authentication: { anonymous: { enabled: false }, webhook: { enabled: false }, x509: { clientCAFile: tls.ca } },
      // Reached only inside the node's namespace, by kube-apiserver's client certificate.
      authorization: { mode: 'AlwaysAllow' },
      cgroupDriver: 'cgroupfs',
      cgroupRoot: `/${CGROUP_ROOT}`,
      failCgroupV1: false,
      failSwapOn: false,
      oomScoreAdj: 0,
      containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
      imageServiceEndpoint: `unix://${paths.containerdSocket}`,
      podLogsDir: paths.podLogs,
      podCIDR: POD_CIDR,
      // CoreDNS on the node's address (dns.ts); no upstream resolver: nothing outside exists.
      clusterDNS: [NODE_IP],
      clusterDomain: 'cluster.local',
      resolvConf: '',
      serializeImagePulls: false,
      evictionHard: {
        'memory.available': '100Mi',
        'nodefs.available': '1%',
        'imagefs.available': '1%',
        'nodefs.inodesFree': '1%',
      },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      syncFrequency: '10s',
      fileCheckFrequency: '20s',
      nodeStatusReportFrequency: '10s',
      // Pods are deleted promptly when a test is done with them.
      shutdownGracePeriod: '0s',
      logging: { format: 'text', verbosity: 1 },
    },
    null,
    2,
  )}\n`;
}

/**
 * kube-proxy's configuration: iptables mode inside the node's namespace, and no host-wide
 * conntrack table sizing (maxPerCore 0 leaves nf_conntrack_max as the machine has it).
 */
export function kubeProxyConfig(paths: NodePaths): string {
  return `${JSON.stringify(
    {
      kind: 'KubeProxyConfiguration',
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      clientConnection: { kubeconfig: paths.kubeProxyKubeconfig },
      hostnameOverride: NODE_NAME,
      bindAddress: '0.0.0.0',
      healthzBindAddress: '127.0.0.1:10256',
      metricsBindAddress: '127.0.0.1:10249',
      mode: 'iptables',
      clusterCIDR: CLUSTER_CIDR,
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    },
    null,
    2,
  )}\n`;
}

/** A bridge with the Pods' addresses, the node its gateway, no masquerade (nowhere to go out). */
export function cniConfig(paths: NodePaths): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'kubedag',
      plugins: [
        {
          type: 'bridge',
          bridge: 'kd-cni0',
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: paths.cniIpam,
            ranges: [[{ subnet: POD_CIDR }]],
            routes: [{ dst: '0.0.0.0/0' }],
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  )}\n`;
}
