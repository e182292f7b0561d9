/**
 * Which history store a process uses, from flags and `KUBEDAG_*` variables: declared once here
 * because the operator and the API server read the same three settings (the chart gives both
 * the same values). `none` keeps every finished run in etcd, as before issue 23; `sqlite` is the
 * embedded file on the operator's volume (the API server reads it through the operator's
 * internal endpoint); `postgres` is a database both processes reach. The PostgreSQL URL holds
 * a password, so it is a variable only (from a Secret), never a flag that `ps` would show.
 */
import { setting, type SettingName } from '../settings.ts';
import type { HistoryStoreConfig } from './open.ts';

export const HISTORY_STORES = ['none', 'sqlite', 'postgres'] as const;
export type HistoryStoreKind = (typeof HISTORY_STORES)[number];

export const DEFAULT_HISTORY_PATH = '/var/lib/kubedag/history/history.db';

function storeKind(text: string, s: SettingName): HistoryStoreKind {
  if ((HISTORY_STORES as readonly string[]).includes(text)) return text as HistoryStoreKind;
  throw new Error(`${s.name} must be one of ${HISTORY_STORES.join(', ')}, not "${text}"`);
}

/** Trimmed; blank is unset, as an empty value is (core/settings.ts). */
const trimmed = (text: string): string | undefined => (text.trim() === '' ? undefined : text.trim());

export const HISTORY_SETTINGS = {
  historyStore: setting<HistoryStoreKind>({
    flag: 'history-store',
    group: 'History',
    values: HISTORY_STORES,
    default: 'none',
    description:
      "Where finished runs go after the archive window: none (they stay in etcd), sqlite (a file on the operator's volume, one replica) or postgres (a database every replica reaches).",
    read: storeKind,
  }),
  historySqlitePath: setting<string | undefined>({
    flag: 'history-sqlite-path',
    group: 'History',
    value: 'PATH',
    default: undefined,
    defaultText: DEFAULT_HISTORY_PATH,
    description:
      'The SQLite file of the sqlite store (the operator opens it; the API server reads it through the operator).',
    read: trimmed,
  }),
  historyPostgresUrl: setting<string | undefined>({
    variables: ['KUBEDAG_HISTORY_POSTGRES_URL'],
    group: 'History',
    value: 'URL',
    default: undefined,
    description:
      'postgres://user:password@host:5432/database of the postgres store (required with it; a variable only, as it holds a password).',
    read: trimmed,
  }),
};

export type HistoryValues = {
  readonly historyStore: HistoryStoreKind;
  readonly historySqlitePath: string | undefined;
  readonly historyPostgresUrl: string | undefined;
};

function postgresUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('KUBEDAG_HISTORY_POSTGRES_URL must be a URL such as postgres://user:password@host:5432/kubedag');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new Error(`KUBEDAG_HISTORY_POSTGRES_URL must start with postgres:// or postgresql://, not ${url.protocol}//`);
  return text;
}

/**
 * The store's configuration, or undefined for `none`. A setting of the other store is refused,
 * as the log store's are: a URL given while the store is still sqlite would otherwise leave
 * history where nobody looks for it.
 */
export function historyStoreFrom(values: HistoryValues): HistoryStoreConfig | undefined {
  const kind = values.historyStore;
  if (kind !== 'postgres' && values.historyPostgresUrl !== undefined)
    throw new Error(
      `KUBEDAG_HISTORY_POSTGRES_URL applies to the postgres history store only: set history-store to postgres as well, or leave it out`,
    );
  if (kind !== 'sqlite' && values.historySqlitePath !== undefined)
    throw new Error(
      `history-sqlite-path applies to the sqlite history store only: set history-store to sqlite as well, or leave it out`,
    );
  if (kind === 'none') return undefined;
  if (kind === 'sqlite') return { kind, path: values.historySqlitePath ?? DEFAULT_HISTORY_PATH };
  if (values.historyPostgresUrl === undefined)
    throw new Error('KUBEDAG_HISTORY_POSTGRES_URL is required with history-store postgres');
  return { kind, url: postgresUrl(values.historyPostgresUrl) };
}
