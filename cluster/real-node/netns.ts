/**
 * The real node's network namespace: made with `unshare --net=FILE` (bind-mounted on a file in
 * the node's folder, not under /run/netns), entered with `nsenter --net=FILE` alone, so that the
 * programs in it keep the host's mounts and see /sys/fs/cgroup. Inside: loopback, and a veth
 * pair whose both ends stay in the namespace, one carrying the node's address (the kubelet
 * refuses a loopback one). Nothing connects it to the host's network: whatever a Pod sends
 * beyond the namespace's own addresses goes nowhere.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { NODE_IP, NODE_PREFIX } from './config.ts';
import { parseMountinfo } from './host.ts';

const exec = promisify(execFile);

/** argv that runs a program inside the namespace. */
export const inNetns = (netns: string): string[] => ['nsenter', `--net=${netns}`];

async function inside(netns: string, command: string, ...args: string[]): Promise<void> {
  try {
    await exec('nsenter', [`--net=${netns}`, command, ...args]);
  } catch (error) {
    throw new Error(
      `${command} ${args.join(' ')} in the node's network namespace failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

export async function isNetnsMounted(netns: string): Promise<boolean> {
  return parseMountinfo(await readFile('/proc/self/mountinfo', 'utf8')).some(
    (m) => m.point === netns && m.type === 'nsfs',
  );
}

/** Makes the namespace and its links; the node's address is NODE_IP. */
export async function createNetns(netns: string): Promise<void> {
  await writeFile(netns, '');
  await exec('unshare', [`--net=${netns}`, 'true']);
  await inside(netns, 'ip', 'link', 'set', 'lo', 'up');
  await inside(netns, 'ip', 'link', 'add', 'kd-node', 'type', 'veth', 'peer', 'name', 'kd-peer');
  await inside(netns, 'ip', 'addr', 'add', `${NODE_IP}/${String(NODE_PREFIX)}`, 'dev', 'kd-node');
  await inside(netns, 'ip', 'link', 'set', 'kd-node', 'up');
  await inside(netns, 'ip', 'link', 'set', 'kd-peer', 'up');
  // A default route, so that Service addresses have one before kube-proxy's rules rewrite them.
  await inside(netns, 'ip', 'route', 'add', 'default', 'dev', 'kd-node');
  await inside(netns, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1');
  // Pods reaching a Service whose backend is on the same bridge pass kube-proxy's rules too.
  await inside(
    netns,
    'sh',
    '-c',
    'if [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]; then echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables; fi',
  );
}

/**
 * Kills every process still in the namespace (SIGKILL), such as a program started by a cluster-up
 * that was killed before it recorded it; resolves once none is left, or after 5 s.
 */
export async function killInNetns(netns: string): Promise<number> {
  if (!(await isNetnsMounted(netns))) return 0;
  const id = `net:[${String((await stat(netns)).ino)}]`;
  let killed = 0;
  for (let round = 0; round < 50; round++) {
    const pids = [];
    for (const entry of await readdir('/proc')) {
      if (/^\d+$/.test(entry) && (await readlink(`/proc/${entry}/ns/net`).catch(() => '')) === id)
        pids.push(Number(entry));
    }
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // Gone already.
      }
    }
    await sleep(100);
  }
  return killed;
}

/** Unmounts the namespace's file: with no process left in it, the kernel frees it and its links. */
export async function removeNetns(netns: string): Promise<void> {
  if (await isNetnsMounted(netns)) await exec('umount', [netns]);
  await rm(netns, { force: true });
}
