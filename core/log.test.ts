import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logSettingsFrom, parseLogSettings, type LogSettings } from './log.ts';

describe('parseLogSettings', () => {
  const cases: { name: string; level?: string; format?: string; want: LogSettings | string }[] = [
    { name: 'nothing set gives info level and JSON lines', want: { level: 'info', format: 'json' } },
    { name: 'an empty value counts as not set', level: '', format: '', want: { level: 'info', format: 'json' } },
    {
      name: 'a level and a format are taken as written',
      level: 'debug',
      format: 'pretty',
      want: { level: 'debug', format: 'pretty' },
    },
    {
      name: 'values are read without regard to case',
      level: 'WARN',
      format: 'JSON',
      want: { level: 'warn', format: 'json' },
    },
    {
      name: 'an unknown level is an error that lists the levels',
      level: 'verbose',
      want: 'log-level must be one of fatal, error, warn, info, debug, trace, silent, not "verbose"',
    },
    {
      name: 'an unknown format is an error that lists the formats',
      format: 'text',
      want: 'log-format must be one of json, pretty, not "text"',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (typeof c.want === 'string') expect(() => parseLogSettings(c.level, c.format)).toThrow(c.want);
      else expect(parseLogSettings(c.level, c.format)).toEqual(c.want);
    });
  }
});

describe('logSettingsFrom', () => {
  const cases: {
    name: string;
    flags: { 'log-level'?: string; 'log-format'?: string };
    env: Record<string, string>;
    want: LogSettings;
  }[] = [
    {
      name: 'the KUBEDAG_LOG_ variables apply without flags',
      flags: {},
      env: { KUBEDAG_LOG_LEVEL: 'debug', KUBEDAG_LOG_FORMAT: 'pretty' },
      want: { level: 'debug', format: 'pretty' },
    },
    {
      name: 'a flag wins over its variable',
      flags: { 'log-level': 'warn' },
      env: { KUBEDAG_LOG_LEVEL: 'debug' },
      want: { level: 'warn', format: 'json' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(logSettingsFrom(c.flags, c.env)).toEqual(c.want);
    });
  }
});

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('writes JSON lines that name the component and carry the fields given', () => {
    const out = capture();
    createLogger('operator', { level: 'info', format: 'json' }, out.stream)
      .child({ run: 'default/r1' })
      .info({ step: 'a' }, 'launched');
    const line = JSON.parse(out.text()) as Record<string, unknown>;
    expect(line).toMatchObject({ component: 'operator', run: 'default/r1', step: 'a', msg: 'launched', level: 30 });
  });

  it('leaves out lines below the level', () => {
    const out = capture();
    const log = createLogger('operator', { level: 'warn', format: 'json' }, out.stream);
    log.info('hidden');
    log.warn('shown');
    expect(out.text()).not.toContain('hidden');
    expect(out.text()).toContain('shown');
  });

  it('writes readable lines with the message and fields in the pretty format', () => {
    const out = capture();
    createLogger('node-agent', { level: 'info', format: 'pretty' }, out.stream).info({ pod: 'default/p' }, 'started');
    const text = out.text();
    expect(text).toContain('started');
    expect(text).toContain('pod: "default/p"');
    expect(() => JSON.parse(text) as unknown).toThrow();
  });
});
