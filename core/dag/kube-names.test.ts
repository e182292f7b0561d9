import { describe, expect, it } from 'vitest';
import {
  configKeyProblem,
  dnsLabelProblem,
  dnsSubdomainProblem,
  envNameProblem,
  isReservedKey,
  labelValueProblem,
  qualifiedNameProblem,
} from './kube-names.ts';

describe('Kubernetes naming rules', () => {
  const cases: { name: string; check: (text: string) => string | undefined; text: string; valid: boolean }[] = [
    {
      name: 'a label key may have a domain prefix',
      check: qualifiedNameProblem,
      text: 'topology.kubernetes.io/zone',
      valid: true,
    },
    {
      name: 'a label key may hold dots, dashes and underscores inside',
      check: qualifiedNameProblem,
      text: 'app_tier.v-1',
      valid: true,
    },
    { name: 'a label key may not start with a dash', check: qualifiedNameProblem, text: '-app', valid: false },
    {
      name: 'a label key prefix must be a DNS subdomain',
      check: qualifiedNameProblem,
      text: 'Example.com/app',
      valid: false,
    },
    { name: 'a label key may not have an empty prefix', check: qualifiedNameProblem, text: '/app', valid: false },
    {
      name: 'a label key name may not pass 63 characters',
      check: qualifiedNameProblem,
      text: 'a'.repeat(64),
      valid: false,
    },
    { name: 'a label value may be empty', check: labelValueProblem, text: '', valid: true },
    { name: 'a label value may not hold a slash', check: labelValueProblem, text: 'a/b', valid: false },
    { name: 'a volume name is a DNS label', check: dnsLabelProblem, text: 'scratch-1', valid: true },
    { name: 'a volume name may not hold a dot', check: dnsLabelProblem, text: 'scratch.1', valid: false },
    { name: 'a Secret name is a DNS subdomain', check: dnsSubdomainProblem, text: 'tls.example-com', valid: true },
    { name: 'a Secret name may not hold capitals', check: dnsSubdomainProblem, text: 'TLS', valid: false },
    { name: 'a ConfigMap key may start with a dot', check: configKeyProblem, text: '.env', valid: true },
    { name: 'a ConfigMap key may not be ..', check: configKeyProblem, text: '..', valid: false },
    { name: 'an environment variable may hold dots and dashes', check: envNameProblem, text: 'my.var-1', valid: true },
    { name: 'an environment variable may not hold "="', check: envNameProblem, text: 'A=B', valid: false },
  ];
  it.each(cases)('$name', ({ check, text, valid }) => {
    expect(check(text) === undefined).toBe(valid);
  });

  it('keeps kubedag.io/ and its subdomains for Kubedag, not names that merely contain it', () => {
    expect(['kubedag.io/step', 'x.kubedag.io/y', 'notkubedag.io/y', 'kubedag.io'].map(isReservedKey)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
