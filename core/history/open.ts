/**
 * Which history store a process uses, parsed once from its settings and passed down: the
 * embedded `sqlite` file for one replica, or a shared `postgres` database.
 */
import type { Clock } from '../kube/time.ts';
import { openPostgresStore } from './postgres.ts';
import { openSqliteStore } from './sqlite.ts';
import type { HistoryStore } from './types.ts';

export type HistoryStoreConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly poolSize?: number };

/** Opens the store and brings its schema up to date. */
export function openHistoryStore(config: HistoryStoreConfig, clock?: Clock): Promise<HistoryStore> {
  const options = clock === undefined ? {} : { clock };
  return config.kind === 'sqlite'
    ? openSqliteStore({ path: config.path, ...options })
    : openPostgresStore({
        url: config.url,
        ...(config.poolSize === undefined ? {} : { poolSize: config.poolSize }),
        ...options,
      });
}
