/** The Helm chart and the helm binary the integration setup provides, for the chart's tests. */
import { join } from 'node:path';
import { inject } from 'vitest';
import { runHelm } from '../../scripts/render-manifests.ts';

export const chart = join(import.meta.dirname, '../../charts/kubedag');

export const helm = (...args: string[]): string => runHelm(inject('binaries').helm, args);
