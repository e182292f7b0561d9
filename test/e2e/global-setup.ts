/**
 * Vitest global setup of the e2e suite: a cluster somebody else made, with the chart installed
 * from `make image`'s image (scripts/kind-e2e.ts does both on kind). The suite reads where it
 * is from the environment and starts nothing itself:
 *   KUBEDAG_E2E_KUBECONFIG  the cluster's kubeconfig
 *   KUBEDAG_E2E_NAMESPACE   the release's namespace (its API server serves it)
 *   KUBEDAG_E2E_RELEASE     the Helm release's name (default kubedag)
 *   KUBEDAG_E2E_STEP_IMAGE  an image with a POSIX shell the cluster's nodes have or can pull
 *                           (default busybox:1.36, the chart's default step image)
 */
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: { kubeconfig: string; namespace: string; release: string; stepImage: string };
  }
}

export default function setup(project: TestProject): void {
  const kubeconfig = process.env.KUBEDAG_E2E_KUBECONFIG ?? '';
  const namespace = process.env.KUBEDAG_E2E_NAMESPACE ?? '';
  if (kubeconfig === '' || namespace === '')
    throw new Error(
      'the e2e suite runs against a cluster with the chart installed: set KUBEDAG_E2E_KUBECONFIG and KUBEDAG_E2E_NAMESPACE, or run `make kind-e2e`',
    );
  project.provide('e2e', {
    kubeconfig,
    namespace,
    release: process.env.KUBEDAG_E2E_RELEASE ?? 'kubedag',
    stepImage: process.env.KUBEDAG_E2E_STEP_IMAGE ?? 'busybox:1.36',
  });
}
