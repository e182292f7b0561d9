/**
 * The image's name and tag, read from the Helm chart so that `make image` builds exactly what
 * the chart runs by default: `image.repository` from values.yaml and the chart's appVersion
 * (the chart's default `image.tag`). The chart is the one source; package.json's version is
 * checked against it (reference.test.ts), not read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

export interface ImageReference {
  /** e.g. ghcr.io/kubedag/kubedag */
  readonly repository: string;
  /** e.g. 0.1.0 */
  readonly tag: string;
}

export const ROOT = join(import.meta.dirname, '..');
const CHART = join(ROOT, 'charts/kubedag');

/** The reference as registries and runtimes spell it: repository:tag. */
export const referenceString = (ref: ImageReference): string => `${ref.repository}:${ref.tag}`;

/** Repository and tag from the chart's values.yaml and Chart.yaml texts. */
export function chartImage(valuesYaml: string, chartYaml: string): ImageReference {
  const values = load(valuesYaml) as { image?: { repository?: unknown; tag?: unknown } } | null;
  const chart = load(chartYaml) as { appVersion?: unknown } | null;
  const repository = values?.image?.repository;
  const tag = values?.image?.tag === '' || values?.image?.tag === undefined ? chart?.appVersion : values.image.tag;
  if (typeof repository !== 'string' || repository === '')
    throw new Error('charts/kubedag/values.yaml has no image.repository');
  if (typeof tag !== 'string' || !/^[\w][\w.-]{0,127}$/.test(tag))
    throw new Error(
      `the chart's image tag ${JSON.stringify(tag)} is not a valid tag (appVersion in charts/kubedag/Chart.yaml)`,
    );
  return { repository, tag };
}

/** The reference the chart's defaults give its operator, API server and runner Pods. */
export function imageReference(): ImageReference {
  return chartImage(readFileSync(join(CHART, 'values.yaml'), 'utf8'), readFileSync(join(CHART, 'Chart.yaml'), 'utf8'));
}

if (import.meta.main) console.log(referenceString(imageReference()));
