/**
 * The shared history store: PostgreSQL through the pg client's pool, for two API server
 * replicas and the operator writing at once. Every write is one transaction and every upsert
 * one ON CONFLICT statement, so concurrent archiving of the same run ends with one row; pages
 * of a listing are separate queries, so no connection is held while a reply is sent.
 * Schema migrations take a transaction-scoped advisory lock: processes starting together apply
 * each migration once.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { systemClock, type Clock } from '../kube/time.ts';
import { storeError } from './errors.ts';
import { SqlHistoryStore, type SqlDriver } from './sql-store.ts';
import { POSTGRES, SCHEMA_TABLE_DDL, SCHEMA_VERSION_QUERY, migrationStatements, type Statement } from './sql.ts';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database (libpq's PG* variables fill in what it leaves out). */
  readonly url: string;
  /** Most connections the pool opens (default 4). */
  readonly poolSize?: number;
  /** Longest one statement may run (default 30 s). */
  readonly statementTimeoutMs?: number;
  /** Told about a connection that failed while idle in the pool; the next query opens another. */
  readonly onIdleError?: (error: Error) => void;
  readonly clock?: Clock;
}

/** The migrations' advisory lock id: any constant another user of the database is unlikely to take. */
const MIGRATION_LOCK = 0x6b756265; // "kube"
/** int8 (COUNT, BIGINT columns): pg hands them out as text, since not all fit a JS number; ours do. */
const INT8_OID = 20;

export async function openPostgresStore(options: PostgresStoreOptions): Promise<SqlHistoryStore> {
  // This pool's own parsers: pg's global ones belong to every pg user in the process.
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 4,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'kubedag',
    types,
  });
  pool.on('error', (error) => options.onIdleError?.(error));
  const driver = new PostgresDriver(pool);
  try {
    await driver.migrate();
  } catch (error) {
    await driver.close();
    throw storeError('open the PostgreSQL database', error);
  }
  return new SqlHistoryStore(driver, options.clock ?? systemClock);
}

class PostgresDriver implements SqlDriver {
  readonly dialect = POSTGRES;
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async migrate(): Promise<void> {
    await this.inTransaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(SCHEMA_TABLE_DDL);
      const version = (await client.query<{ version: number }>(SCHEMA_VERSION_QUERY)).rows[0]?.version ?? 0;
      for (const sql of migrationStatements(this.dialect, version)) await client.query(sql);
    });
  }

  async query<Row>(statement: Statement): Promise<Row[]> {
    return (await this.pool.query(prepared(statement))).rows as Row[];
  }

  transaction(statements: readonly Statement[]): Promise<number[]> {
    return this.inTransaction(async (client) => {
      const counts: number[] = [];
      for (const s of statements) counts.push((await client.query(prepared(s))).rowCount ?? 0);
      return counts;
    });
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A failed ROLLBACK means the connection itself is gone: the pool must not hand it out again.
      await client.query('ROLLBACK').catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * A named statement: each connection parses it once and then only binds values (an archive of
 * many runs repeats one statement). The store's statements are a few dozen texts; a one-off
 * text (a delete of a batch of keys) is sent unnamed, so connections do not collect them.
 */
function prepared(statement: Statement): pg.QueryConfig {
  if (statement.once === true) return { text: statement.sql, values: values(statement) };
  return {
    name: `kubedag-${createHash('sha1').update(statement.sql).digest('hex').slice(0, 16)}`,
    text: statement.sql,
    values: values(statement),
  };
}

/** pg sends a Uint8Array as text; a Buffer goes as bytea. */
function values(statement: Statement): unknown[] {
  return statement.params.map((v) =>
    v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v,
  );
}
