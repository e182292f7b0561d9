/**
 * Both history stores for one contract test: `sqlite` in a file of a temporary folder, and
 * `postgres` in a database of its own on a real PostgreSQL (test/postgres-server.ts), one server
 * per test file. Each `fresh()` is a new empty database that can be opened again and again (a
 * restart, a second replica) and counted into directly, under the store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import pg from 'pg';
import { openPostgresStore } from '../core/history/postgres.ts';
import { openSqliteStore } from '../core/history/sqlite.ts';
import type { Statement } from '../core/history/sql.ts';
import type { HistoryStore } from '../core/history/types.ts';
import type { Clock } from '../core/kube/time.ts';
import { POSTGRES_SERVER_START_MS, startPostgres, type PostgresServer } from './postgres-server.ts';

export interface FreshDatabase {
  /** A store on this database; every call opens another (connection, pool), closed by `close`. */
  open(): Promise<HistoryStore>;
  /** The first column of the first row of a query made under the store, as a number. */
  scalar(sql: string): Promise<number>;
  /** Runs SQL under the store (to plant what another version would have left). */
  exec(sql: string): Promise<void>;
  /** How the database would run a statement of the store's (EXPLAIN), one line per plan node. */
  plan(statement: Statement): Promise<string>;
}

export interface Backend {
  readonly name: 'sqlite' | 'postgres';
  /** Before the file's tests: a server to start, or nothing. */
  setup(): Promise<void>;
  fresh(): Promise<FreshDatabase>;
  /** Closes every store opened and removes what setup and fresh made. */
  teardown(): Promise<void>;
}

export const BACKEND_SETUP_MS = POSTGRES_SERVER_START_MS;

export const fixedClock: Clock = { now: () => new Date(Date.UTC(2026, 10, 28, 12)) };

export function backends(): Backend[] {
  return [sqliteBackend(), postgresBackend()];
}

function sqliteBackend(): Backend {
  let dir = '';
  let count = 0;
  const stores: HistoryStore[] = [];
  return {
    name: 'sqlite',
    setup: async () => {
      dir = await mkdtemp(join(tmpdir(), 'kubedag-history-'));
    },
    fresh: () => {
      const path = join(dir, `history-${String((count += 1))}.db`);
      const direct = <T>(use: (db: DatabaseSync) => T): T => {
        const db = new DatabaseSync(path);
        try {
          return use(db);
        } finally {
          db.close();
        }
      };
      return Promise.resolve({
        open: async () => remember(stores, await openSqliteStore({ path, clock: fixedClock })),
        scalar: (sql) => Promise.resolve(direct((db) => Number(Object.values(db.prepare(sql).get() ?? {})[0]))),
        exec: (sql) => {
          direct((db) => {
            db.exec(sql);
          });
          return Promise.resolve();
        },
        plan: (statement) => {
          const explain = `EXPLAIN QUERY PLAN ${statement.sql.replace(/\$(\d+)/g, '?$1')}`;
          const rows = direct(
            (db) => db.prepare(explain).all(...(statement.params as SQLInputValue[])) as { detail: string }[],
          );
          return Promise.resolve(rows.map((r) => r.detail).join('\n'));
        },
      });
    },
    teardown: async () => {
      await Promise.all(stores.map((s) => s.close()));
      if (dir !== '') await rm(dir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(): Backend {
  let server: PostgresServer | undefined;
  let count = 0;
  const stores: HistoryStore[] = [];
  const direct = async <T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    setup: async () => {
      server = await startPostgres();
    },
    fresh: async () => {
      if (server === undefined) throw new Error('postgres backend used before setup');
      const url = await server.database(`history_${String((count += 1))}`);
      return {
        open: async () => remember(stores, await openPostgresStore({ url, clock: fixedClock })),
        scalar: (sql) =>
          direct(url, async (c) =>
            Number(Object.values((await c.query<Record<string, unknown>>(sql)).rows[0] ?? {})[0]),
          ),
        exec: (sql) =>
          direct(url, async (c) => {
            await c.query(sql);
          }),
        plan: (statement) =>
          direct(url, async (c) => {
            await c.query('ANALYZE history_runs');
            const rows = (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.sql}`, [...statement.params]))
              .rows;
            return rows.map((r) => r['QUERY PLAN']).join('\n');
          }),
      };
    },
    teardown: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await server?.stop();
    },
  };
}

function remember(stores: HistoryStore[], store: HistoryStore): HistoryStore {
  stores.push(store);
  return store;
}
