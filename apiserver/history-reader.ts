/**
 * The history store as the API server reads it (core/history/settings.ts): `postgres` is a
 * database every replica reaches, opened here; `sqlite` is a file on the operator's volume,
 * which only the operator opens, so it is read through the operator's internal endpoint.
 */
import { openHistoryStore, type HistoryStoreConfig } from '../core/history/open.ts';
import type { HistoryReader } from '../core/history/types.ts';

export async function openHistoryReader(config: HistoryStoreConfig, operatorUrl: string): Promise<HistoryReader> {
  if (config.kind === 'postgres') return openHistoryStore(config);
  // LEAD: the sqlite store is read through the operator: return the HTTP client of
  // core/history/http-client.ts here, e.g. `return historyHttpClient(operatorUrl);`.
  throw new Error(`history-store sqlite: the API server reads it through the operator (${operatorUrl}), and that client is not built yet; use none or postgres`);
}
