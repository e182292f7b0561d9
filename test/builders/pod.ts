/**
 * A fluent builder for Pods, shared by unit and integration tests: a runnable Pod for the node
 * agent (`pod('x').shell('echo hi').onNode({gpu: 'true'}).build()`) or a step Pod as the
 * operator's caches see it (`pod('p').ownedBy('etl-r1').on('node-1').phase('Running')`).
 */
import type { V1Container, V1Pod, V1PodSpec, V1PodStatus } from '@kubernetes/client-node';
import { API_VERSION } from '../../core/resources/constants.ts';

export class PodBuilder {
  private readonly object: V1Pod & { metadata: NonNullable<V1Pod['metadata']>; spec: V1PodSpec };

  constructor(name: string) {
    this.object = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] },
    };
  }

  private get main(): V1Container {
    return this.object.spec.containers[0] as V1Container;
  }

  namespace(namespace: string): this {
    this.object.metadata.namespace = namespace;
    return this;
  }

  label(labels: Record<string, string>): this {
    this.object.metadata.labels = { ...this.object.metadata.labels, ...labels };
    return this;
  }

  /** Controlled by a DAGRun, as the operator creates step Pods (uid `uid-<run>` unless given). */
  ownedBy(run: string, uid = `uid-${run}`): this {
    this.object.metadata.ownerReferences = [
      { apiVersion: API_VERSION, kind: 'DAGRun', name: run, uid, controller: true },
    ];
    return this;
  }

  shell(script: string): this {
    this.main.command = ['/bin/sh', '-c', script];
    return this;
  }

  env(variables: NonNullable<V1Container['env']>): this {
    this.main.env = [...(this.main.env ?? []), ...variables];
    return this;
  }

  /** Adds the volume to the Pod unless it has one of that name, and mounts it in the container. */
  mount(
    volume: NonNullable<V1PodSpec['volumes']>[number],
    mountPath: string,
    options: { subPath?: string; readOnly?: boolean } = {},
  ): this {
    if (!(this.object.spec.volumes ?? []).some((v) => v.name === volume.name))
      this.object.spec.volumes = [...(this.object.spec.volumes ?? []), volume];
    this.main.volumeMounts = [...(this.main.volumeMounts ?? []), { name: volume.name, mountPath, ...options }];
    return this;
  }

  workingDir(dir: string): this {
    this.main.workingDir = dir;
    return this;
  }

  /** The Pod's securityContext (fsGroup, runAsUser, ...). */
  podSecurity(context: NonNullable<V1PodSpec['securityContext']>): this {
    this.object.spec.securityContext = { ...this.object.spec.securityContext, ...context };
    return this;
  }

  /** The container's securityContext. */
  security(context: NonNullable<V1Container['securityContext']>): this {
    this.main.securityContext = { ...this.main.securityContext, ...context };
    return this;
  }

  limits(limits: Record<string, string>): this {
    this.main.resources = { ...this.main.resources, limits };
    return this;
  }

  onNode(selector: Record<string, string>): this {
    this.object.spec.nodeSelector = selector;
    return this;
  }

  /** Bound to a node, as the scheduler leaves it. */
  on(nodeName: string): this {
    this.object.spec.nodeName = nodeName;
    return this;
  }

  grace(seconds: number): this {
    this.object.spec.terminationGracePeriodSeconds = seconds;
    return this;
  }

  status(status: V1PodStatus): this {
    this.object.status = { ...this.object.status, ...status };
    return this;
  }

  phase(phase: string): this {
    return this.status({ phase });
  }

  build(): V1Pod {
    return structuredClone(this.object);
  }
}

export const pod = (name: string): PodBuilder => new PodBuilder(name);
