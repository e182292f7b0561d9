/**
 * The embedded history store: Node's built-in SQLite (node:sqlite) in one file on the
 * operator's volume, for one replica. WAL, so that reads go on while a run is archived;
 * synchronous=FULL, because the operator deletes a DAGRun as soon as its archive is committed,
 * and a commit that a power cut could take back would lose the run.
 *
 * node:sqlite is synchronous: each statement, and each transaction as a whole, runs without
 * yielding, so no other call can slip into a transaction. A history read is an index range of
 * at most a page, short enough to run on the event loop.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { systemClock, type Clock } from '../kube/time.ts';
import { storeError } from './errors.ts';
import { SqlHistoryStore, type SqlDriver } from './sql-store.ts';
import { SCHEMA_TABLE_DDL, SCHEMA_VERSION_QUERY, SQLITE, migrationStatements, type Statement } from './sql.ts';

export interface SqliteStoreOptions {
  /** The database file; created with its folder when missing. */
  readonly path: string;
  /** How long a statement waits for another connection's lock (default 5 s). */
  readonly busyTimeoutMs?: number;
  readonly clock?: Clock;
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqlHistoryStore> {
  try {
    await mkdir(dirname(options.path), { recursive: true });
    const driver = new SqliteDriver(new DatabaseSync(options.path), options.busyTimeoutMs ?? 5_000);
    try {
      driver.migrate();
    } catch (error) {
      await driver.close();
      throw error;
    }
    return new SqlHistoryStore(driver, options.clock ?? systemClock);
  } catch (error) {
    throw storeError(`open ${options.path}`, error);
  }
}

class SqliteDriver implements SqlDriver {
  readonly dialect = SQLITE;
  private readonly db: DatabaseSync;
  /** Prepared statements by text: listings vary only in which filters they have. */
  private readonly prepared = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, busyTimeoutMs: number) {
    this.db = db;
    db.exec(`PRAGMA busy_timeout = ${String(busyTimeoutMs)}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA foreign_keys = ON');
  }

  /** Brings the schema up to date; IMMEDIATE takes the write lock first, so two openers take turns. */
  migrate(): void {
    this.inTransaction(() => {
      this.db.exec(SCHEMA_TABLE_DDL);
      const version = Number((this.db.prepare(SCHEMA_VERSION_QUERY).get() as { version: number | bigint }).version);
      for (const sql of migrationStatements(this.dialect, version)) this.db.exec(sql);
    });
  }

  query<Row>(statement: Statement): Promise<Row[]> {
    return Promise.resolve(this.statement(statement.sql).all(...values(statement)) as Row[]);
  }

  transaction(statements: readonly Statement[]): Promise<number[]> {
    return Promise.resolve(
      this.inTransaction(() => statements.map((s) => Number(this.statement(s.sql).run(...values(s)).changes))),
    );
  }

  close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
    return Promise.resolve();
  }

  private inTransaction<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private statement(sql: string): StatementSync {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      // The shared SQL numbers parameters as PostgreSQL does ($1); SQLite spells them ?1.
      statement = this.db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
      this.prepared.set(sql, statement);
    }
    return statement;
  }
}

function values(statement: Statement): SQLInputValue[] {
  return statement.params as SQLInputValue[];
}
