import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../operator/config.ts';
import { chartImage, imageReference, referenceString, ROOT } from './reference.ts';

describe('chartImage', () => {
  const chart = 'name: kubedag\nappVersion: "0.2.0"\n';
  const cases = [
    {
      name: "tags the image with the chart's appVersion when values leave the tag empty",
      values: 'image: {repository: r.example/k, tag: ""}',
      want: { repository: 'r.example/k', tag: '0.2.0' },
    },
    {
      name: 'takes a tag the values set',
      values: 'image: {repository: r.example/k, tag: "edge"}',
      want: { repository: 'r.example/k', tag: 'edge' },
    },
  ];
  it.each(cases)('$name', ({ values, want }) => {
    expect(chartImage(values, chart)).toEqual(want);
  });
  it('refuses values without a repository', () => {
    expect(() => chartImage('image: {tag: ""}', chart)).toThrow('no image.repository');
  });
  it('refuses a tag a registry would refuse', () => {
    expect(() => chartImage('image: {repository: r, tag: ""}', 'appVersion: "1.0/x"')).toThrow('not a valid tag');
  });
});

describe("the image's name and tag", () => {
  it("are the chart's: ghcr.io/kubedag/kubedag tagged with the chart's appVersion, which package.json's version matches", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(imageReference()).toEqual({ repository: 'ghcr.io/kubedag/kubedag', tag: pkg.version });
  });
  it("are the operator's default runner image, so that an operator started without the chart runs steps in this image too", () => {
    expect(parseConfig([], {}).steps.runnerImage).toBe(referenceString(imageReference()));
  });
});
