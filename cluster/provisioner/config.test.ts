import { describe, expect, it } from 'vitest';
import { parseConfig, type ProvisionerConfig } from './config.ts';

describe('parseConfig', () => {
  const cases: { name: string; args: string[]; want: Partial<ProvisionerConfig> | string }[] = [
    {
      name: 'defaults the provisioner and class names',
      args: ['--kubeconfig=/k', '--dir=/c/volumes'],
      want: { dir: '/c/volumes', name: 'kubedag.io/local', storageClass: 'kubedag-local' },
    },
    {
      name: 'takes other names',
      args: ['--kubeconfig=/k', '--dir=/v', '--name=example.com/x', '--storage-class=x'],
      want: { name: 'example.com/x', storageClass: 'x' },
    },
    {
      name: 'refuses a relative directory',
      args: ['--kubeconfig=/k', '--dir=volumes'],
      want: '--dir is required and must be absolute',
    },
    { name: 'refuses to start without a kubeconfig', args: ['--dir=/v'], want: '--kubeconfig is required' },
  ];
  it.each(cases)('$name', ({ args, want }) => {
    if (typeof want === 'string') expect(() => parseConfig(args, {})).toThrow(want);
    else expect(parseConfig(args, {})).toMatchObject(want);
  });
});
