import { describe, expect, it } from 'vitest';
import { parseSettings } from '../settings.ts';
import { DEFAULT_HISTORY_PATH, HISTORY_SETTINGS, historyStoreFrom } from './settings.ts';

const parse = (argv: string[], env: Record<string, string> = {}) =>
  historyStoreFrom(parseSettings(HISTORY_SETTINGS, argv, env));

describe('history store settings', () => {
  it('keep runs in etcd unless a store is named', () => {
    expect(parse([])).toBeUndefined();
  });

  it('put the sqlite file at its default path unless one is given', () => {
    expect(parse(['--history-store=sqlite'])).toEqual({ kind: 'sqlite', path: DEFAULT_HISTORY_PATH });
    expect(parse(['--history-store=sqlite', '--history-sqlite-path=/data/h.db'])).toEqual({
      kind: 'sqlite',
      path: '/data/h.db',
    });
  });

  it('read the PostgreSQL URL from its variable only', () => {
    const url = 'postgres://kubedag:secret@db:5432/kubedag';
    expect(parse([], { KUBEDAG_HISTORY_STORE: 'postgres', KUBEDAG_HISTORY_POSTGRES_URL: url })).toEqual({
      kind: 'postgres',
      url,
    });
    expect(() => parse(['--history-store=postgres'])).toThrow(/KUBEDAG_HISTORY_POSTGRES_URL is required/);
  });

  it.each([
    [['--history-store=disk'], /history-store must be one of none, sqlite, postgres/],
    [['--history-sqlite-path=/x.db'], /applies to the sqlite history store only/],
    [['--history-store=postgres', '--history-sqlite-path=/x.db'], /applies to the sqlite history store only/],
  ])('refuse %j', (argv, message) => {
    const env: Record<string, string> = argv.includes('--history-store=postgres')
      ? { KUBEDAG_HISTORY_POSTGRES_URL: 'postgres://h/db' }
      : {};
    expect(() => parse(argv, env)).toThrow(message);
  });

  it('refuse a URL that is not PostgreSQL', () => {
    expect(() => parse(['--history-store=postgres'], { KUBEDAG_HISTORY_POSTGRES_URL: 'mysql://h/db' })).toThrow(
      /must start with postgres:\/\//,
    );
    expect(() => parse([], { KUBEDAG_HISTORY_POSTGRES_URL: 'postgres://h/db' })).toThrow(
      /applies to the postgres history store only/,
    );
  });
});
