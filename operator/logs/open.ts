/**
 * Opens the configured log store. The S3 store and the AWS SDK behind it are imported only
 * when chosen: the directory store's operator does not hold them in memory
 * (docs/decisions/2026-11-24-s3-logs.md).
 */
import type { LogStoreConfig } from './store-config.ts';
import { DirectoryLogStore, type LogStore } from './store.ts';

export async function openLogStore(config: LogStoreConfig): Promise<LogStore> {
  if (config.kind === 'directory') return new DirectoryLogStore(config.dir);
  const { S3LogStore } = await import('./s3-store.ts');
  const store = await S3LogStore.open(config);
  await store.check();
  return store;
}
