/**
 * The history store as the API server reads it (core/history/settings.ts): `postgres` is a
 * database every replica reaches, opened here; `sqlite` is a file on the operator's volume,
 * which only the operator opens, so it is read through the operator's internal endpoint
 * (core/history/http), as step logs are.
 */
import { HistoryClient } from '../core/history/http/client.ts';
import { openHistoryStore, type HistoryStoreConfig } from '../core/history/open.ts';
import type { HistoryReader } from '../core/history/types.ts';

export async function openHistoryReader(config: HistoryStoreConfig, operatorUrl: string): Promise<HistoryReader> {
  if (config.kind === 'postgres') return openHistoryStore(config);
  return Promise.resolve(new HistoryClient(operatorUrl));
}
