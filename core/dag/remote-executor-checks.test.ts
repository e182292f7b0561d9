import { describe, expect, it } from 'vitest';
import { checkMailSettings, checkSshSettings } from './remote-executor-checks.ts';

describe('checkMailSettings', () => {
  const cases: { name: string; config: Record<string, unknown>; want: string[] }[] = [
    {
      name: 'an address, a subject and an HTML body are accepted',
      config: { to: 'a@x', subject: 's', message: 'm', contentType: 'text/html' },
      want: [],
    },
    {
      name: 'a list of recipients and of attachments is accepted',
      config: { to: ['a@x', 'b@x'], attachments: ['r.csv'] },
      want: [],
    },
    {
      name: 'a content type from a variable waits for the run',
      config: { to: 'a@x', contentType: '${TYPE}' },
      want: [],
    },
    {
      name: 'a missing to is reported at to',
      config: {},
      want: ['c.to: the mail executor needs to: an address or a list of addresses'],
    },
    {
      name: 'a list of empty recipients is reported',
      config: { to: [''] },
      want: ['c.to: the mail executor needs to: an address or a list of addresses'],
    },
    {
      name: 'an attachment mapping is reported',
      config: { to: 'a@x', attachments: { a: 1 } },
      want: ['c.attachments: attachments must be a path or a list of paths'],
    },
    {
      name: 'an unsupported content type is reported',
      config: { to: 'a@x', contentType: 'application/pdf' },
      want: [
        'c.contentType: contentType "application/pdf" is not supported; use text/html (the default) or text/plain',
      ],
    },
  ];
  it.each(cases)('$name', ({ config, want }) => {
    expect(checkMailSettings(config, 'c').map((i) => `${i.path}: ${i.message}`)).toEqual(want);
  });
});

describe('checkSshSettings', () => {
  const cases: { name: string; config: Record<string, unknown>; want: string[] }[] = [
    {
      name: 'a key path, a numeric port and a flag are accepted',
      config: { key: '~/.ssh/id', port: 2222, strictHostKey: false },
      want: [],
    },
    {
      name: 'a key from a Secret is accepted',
      config: { key: { secretKeyRef: { name: 'deploy-ssh', key: 'id_ed25519' } } },
      want: [],
    },
    { name: 'a port from a variable waits for the run', config: { port: '${PORT}' }, want: [] },
    {
      name: 'a Secret name Kubernetes would refuse is reported at its path',
      config: { key: { secretKeyRef: { name: 'Deploy_SSH', key: 'id' } } },
      want: ['c.key.secretKeyRef.name'],
    },
    {
      name: 'a Secret reference without key is reported',
      config: { key: { secretKeyRef: { name: 'deploy' } } },
      want: ['c.key.secretKeyRef.key'],
    },
    { name: 'a key of another shape is reported', config: { key: { path: '/k' } }, want: ['c.key'] },
    { name: 'a port out of range is reported', config: { port: '99999' }, want: ['c.port'] },
    {
      name: 'a strictHostKey that is not a flag is reported',
      config: { strictHostKey: 'sometimes' },
      want: ['c.strictHostKey'],
    },
  ];
  it.each(cases)('$name', ({ config, want }) => {
    expect(checkSshSettings(config, 'c').map((i) => i.path)).toEqual(want);
  });
});
