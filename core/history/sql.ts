/**
 * The history store's SQL, one text for both databases where they agree (ON CONFLICT upserts,
 * partial indexes, row values), with the few words that differ in a Dialect. Statements are
 * written with PostgreSQL's `$n` parameters; the sqlite driver numbers them `?n`. Pure.
 *
 * Two tables: `history_runs`, one small row per run with everything a listing shows, and
 * `history_run_bodies`, the compressed DAGRun, read only for one run's details. Listings and
 * counts so never read a body, and a rename moves summary rows only.
 */
import { HistoryStoreError } from './errors.ts';
import { SUMMARY_COLUMNS, type SummaryRow } from './record.ts';
import type { HistoryFilter, RunKey, RunName } from './types.ts';

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Text compared byte by byte whatever the database's locale, so that both stores order alike. */
  readonly text: string;
  readonly blob: string;
  readonly rowId: string;
  /** `column` contains the text bound to `param`, case-sensitive. */
  contains(column: string, param: string): string;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  text: 'TEXT',
  blob: 'BLOB',
  rowId: 'INTEGER PRIMARY KEY',
  contains: (column, param) => `instr(${column}, ${param}) > 0`,
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  text: 'TEXT COLLATE "C"',
  blob: 'BYTEA',
  rowId: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  contains: (column, param) => `strpos(${column}, ${param}) > 0`,
};

export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** A text unlikely to come again (a delete of so many keys): not worth preparing. */
  readonly once?: boolean;
}

/** The table that records which migrations a database has had. */
export const SCHEMA_TABLE = 'kubedag_history_schema';

/**
 * Migrations by version (index + 1). A store opening a database applies the ones it lacks in
 * one transaction; one that finds a newer version than it knows refuses to open. Append only.
 */
export function migrations(d: Dialect): readonly (readonly string[])[] {
  const t = d.text;
  return [
    [
      `CREATE TABLE history_runs (
        id ${d.rowId},
        namespace ${t} NOT NULL, dag_name ${t} NOT NULL, run_id ${t} NOT NULL,
        resource_name ${t} NOT NULL, uid ${t} NOT NULL,
        status SMALLINT NOT NULL, status_label ${t} NOT NULL,
        created_ms BIGINT NOT NULL, created_at ${t} NOT NULL,
        queued_at ${t} NOT NULL, started_at ${t} NOT NULL, finished_at ${t} NOT NULL, finished_ms BIGINT,
        params ${t} NOT NULL,
        parent_name ${t} NOT NULL, parent_run_id ${t} NOT NULL, root_name ${t} NOT NULL, root_run_id ${t} NOT NULL,
        archived_ms BIGINT NOT NULL,
        UNIQUE (namespace, dag_name, run_id)
      )`,
      `CREATE TABLE history_run_bodies (
        run BIGINT PRIMARY KEY REFERENCES history_runs (id) ON DELETE CASCADE,
        body ${d.blob} NOT NULL
      )`,
      // Listings are of root runs (a sub run is found through its root): partial indexes
      // hold only those, in the listings' order (newest created first, then run id, DAG name).
      `CREATE INDEX history_runs_dag ON history_runs (namespace, dag_name, created_ms DESC, run_id) WHERE parent_run_id = ''`,
      `CREATE INDEX history_runs_status ON history_runs (namespace, status, created_ms DESC, run_id, dag_name) WHERE parent_run_id = ''`,
      `CREATE INDEX history_runs_created ON history_runs (namespace, created_ms DESC, run_id, dag_name) WHERE parent_run_id = ''`,
      `CREATE INDEX history_runs_run_id ON history_runs (namespace, run_id)`,
      `CREATE INDEX history_runs_root ON history_runs (namespace, root_name, root_run_id, created_ms DESC) WHERE parent_run_id <> ''`,
      `CREATE INDEX history_runs_finished ON history_runs (namespace, dag_name, finished_ms)`,
    ],
  ];
}

/** The statements that bring a database at version `current` to the latest, each migration recording itself. */
export function migrationStatements(d: Dialect, current: number): string[] {
  const all = migrations(d);
  if (current > all.length) {
    throw new HistoryStoreError(
      `history store: the database's schema is version ${String(current)}, newer than this Kubedag knows (${String(all.length)}); run a Kubedag at least as new as the one that wrote it`,
      { retryable: false },
    );
  }
  return all
    .slice(current)
    .flatMap((steps, i) => [...steps, `INSERT INTO ${SCHEMA_TABLE} (version) VALUES (${String(current + i + 1)})`]);
}

export const SCHEMA_TABLE_DDL = `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version INTEGER PRIMARY KEY)`;
export const SCHEMA_VERSION_QUERY = `SELECT COALESCE(MAX(version), 0) AS version FROM ${SCHEMA_TABLE}`;

/** Collects parameters and answers their placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${String(this.values.length)}`;
  }
}

const SELECT_SUMMARY = `SELECT ${SUMMARY_COLUMNS.join(', ')} FROM history_runs`;
const ORDER = 'ORDER BY created_ms DESC, run_id, dag_name';

/**
 * One run's summary row and body, replacing what its key held (its row id stays). PostgreSQL
 * does both in one statement (a data-modifying WITH), one round trip a run; SQLite has no
 * round trips to save and no INSERT inside WITH.
 */
export function upsertStatements(d: Dialect, row: SummaryRow, body: Uint8Array, archivedMs: number): Statement[] {
  const p = new Params();
  const columns = [...SUMMARY_COLUMNS, 'archived_ms'];
  const values = [...SUMMARY_COLUMNS.map((c) => p.add(row[c])), p.add(archivedMs)];
  const updates = columns
    .filter((c) => !['namespace', 'dag_name', 'run_id'].includes(c))
    .map((c) => `${c} = excluded.${c}`);
  const upsertRow = `INSERT INTO history_runs (${columns.join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT (namespace, dag_name, run_id) DO UPDATE SET ${updates.join(', ')}`;
  const replaceBody = 'ON CONFLICT (run) DO UPDATE SET body = excluded.body';
  if (d.name === 'postgres') {
    const bodyParam = p.add(body);
    return [
      {
        sql: `WITH run AS (${upsertRow} RETURNING id) INSERT INTO history_run_bodies (run, body) SELECT id, CAST(${bodyParam} AS BYTEA) FROM run ${replaceBody}`,
        params: p.values,
      },
    ];
  }
  const upsertBody = `INSERT INTO history_run_bodies (run, body) VALUES ((SELECT id FROM history_runs WHERE namespace = $1 AND dag_name = $2 AND run_id = $3), $4) ${replaceBody}`;
  return [
    { sql: upsertRow, params: p.values },
    { sql: upsertBody, params: [row.namespace, row.dag_name, row.run_id, body] },
  ];
}

function keyWhere(key: RunKey, p: Params): string {
  return `namespace = ${p.add(key.namespace)} AND dag_name = ${p.add(key.dagName)} AND run_id = ${p.add(key.dagRunId)}`;
}

export function summaryQuery(key: RunKey): Statement {
  const p = new Params();
  return { sql: `${SELECT_SUMMARY} WHERE ${keyWhere(key, p)}`, params: p.values };
}

export function bodyQuery(key: RunKey): Statement {
  const p = new Params();
  const columns = SUMMARY_COLUMNS.map((c) => `r.${c}`).join(', ');
  const where = keyWhere(key, p).replace(/(namespace|dag_name|run_id) =/g, 'r.$1 =');
  return {
    sql: `SELECT ${columns}, b.body FROM history_runs r JOIN history_run_bodies b ON b.run = r.id WHERE ${where}`,
    params: p.values,
  };
}

export function withRunIdQuery(namespace: string, dagRunId: string): Statement {
  return { sql: `${SELECT_SUMMARY} WHERE namespace = $1 AND run_id = $2 ${ORDER}`, params: [namespace, dagRunId] };
}

/** Where a page starts: after the last row of the page before, in the listings' order. */
export interface Cursor {
  readonly createdMs: number;
  readonly dagRunId: string;
  readonly dagName: string;
}

export function cursorOf(row: SummaryRow): Cursor {
  return { createdMs: row.created_ms, dagRunId: row.run_id, dagName: row.dag_name };
}

/** Root runs by filter, or the sub runs of one root. */
export type ListScope = { readonly roots: HistoryFilter } | { readonly subsOf: RunName; readonly namespace: string };

/**
 * One page of a listing. The cursor's `created_ms <= $a` repeats what the OR says so that the
 * database can start the index range there: without it each page would scan from the newest.
 */
export function pageQuery(d: Dialect, scope: ListScope, after: Cursor | undefined, limit: number): Statement {
  const p = new Params();
  const where =
    'roots' in scope
      ? rootConditions(d, scope.roots, p)
      : [
          `namespace = ${p.add(scope.namespace)}`,
          `parent_run_id <> ''`,
          `root_name = ${p.add(scope.subsOf.name)}`,
          `root_run_id = ${p.add(scope.subsOf.dagRunId)}`,
        ];
  if (after !== undefined) {
    const [a, b, c] = [p.add(after.createdMs), p.add(after.dagRunId), p.add(after.dagName)];
    where.push(
      `created_ms <= ${a}`,
      `(created_ms < ${a} OR (created_ms = ${a} AND (run_id > ${b} OR (run_id = ${b} AND dag_name > ${c}))))`,
    );
  }
  return { sql: `${SELECT_SUMMARY} WHERE ${where.join(' AND ')} ${ORDER} LIMIT ${p.add(limit)}`, params: p.values };
}

function rootConditions(d: Dialect, filter: HistoryFilter, p: Params): string[] {
  // A literal, not a parameter: only then do the partial indexes' predicate and the query's match.
  const where = [`namespace = ${p.add(filter.namespace)}`, `parent_run_id = ''`];
  if (filter.name !== undefined && filter.name !== '')
    where.push(
      filter.exactName === true ? `dag_name = ${p.add(filter.name)}` : d.contains('dag_name', p.add(filter.name)),
    );
  if (filter.status !== undefined) where.push(`status = ${p.add(filter.status)}`);
  if (filter.createdFrom !== undefined) where.push(`created_ms >= ${p.add(filter.createdFrom)}`);
  if (filter.createdTo !== undefined) where.push(`created_ms <= ${p.add(filter.createdTo)}`);
  if (filter.dagRunId !== undefined && filter.dagRunId !== '') where.push(d.contains('run_id', p.add(filter.dagRunId)));
  return where;
}

export function expiredQuery(namespace: string, dagName: string, finishedBefore: number, limit: number): Statement {
  return {
    sql: 'SELECT namespace, dag_name, run_id FROM history_runs WHERE namespace = $1 AND dag_name = $2 AND finished_ms < $3 ORDER BY finished_ms, run_id LIMIT $4',
    params: [namespace, dagName, finishedBefore, limit],
  };
}

/** Keys per delete statement: 3 parameters each, well inside both databases' limits. */
export const DELETE_CHUNK = 500;

/** Deletes runs by key; their bodies go with them (ON DELETE CASCADE). */
export function removeStatements(keys: readonly RunKey[]): Statement[] {
  const statements: Statement[] = [];
  for (let start = 0; start < keys.length; start += DELETE_CHUNK) {
    const p = new Params();
    const rows = keys
      .slice(start, start + DELETE_CHUNK)
      .map((k) => `(${p.add(k.namespace)}, ${p.add(k.dagName)}, ${p.add(k.dagRunId)})`);
    statements.push({
      sql: `DELETE FROM history_runs WHERE (namespace, dag_name, run_id) IN (VALUES ${rows.join(', ')})`,
      params: p.values,
      once: true,
    });
  }
  return statements;
}

/**
 * A rename: sub runs first follow their root (while it is still found under the old name),
 * then the root runs move. A root whose id is taken under the new name stays, and so do its
 * sub runs. The last statement's count is the number of root runs moved.
 */
export function relistStatements(namespace: string, from: string, to: string): Statement[] {
  const taken = `EXISTS (SELECT 1 FROM history_runs t WHERE t.namespace = $1 AND t.dag_name = $3 AND t.run_id = history_runs.%s AND t.parent_run_id = '')`;
  return [
    {
      sql:
        `UPDATE history_runs SET root_name = $3, parent_name = CASE WHEN parent_name = $2 AND parent_run_id = root_run_id THEN $3 ELSE parent_name END ` +
        `WHERE namespace = $1 AND parent_run_id <> '' AND root_name = $2 AND NOT ${taken.replace('%s', 'root_run_id')}`,
      params: [namespace, from, to],
    },
    {
      sql: `UPDATE history_runs SET dag_name = $3, root_name = $3 WHERE namespace = $1 AND dag_name = $2 AND parent_run_id = '' AND NOT ${taken.replace('%s', 'run_id')}`,
      params: [namespace, from, to],
    },
  ];
}

export function countsQuery(namespace: string): Statement {
  return {
    sql: `SELECT dag_name, status, COUNT(*) AS runs FROM history_runs WHERE namespace = $1 AND parent_run_id = '' GROUP BY dag_name, status ORDER BY dag_name, status`,
    params: [namespace],
  };
}

/** Every namespace and DAG name that has runs, root or sub: what retention walks (an index scan of the run key). */
export function dagsWithRunsQuery(): Statement {
  return { sql: 'SELECT DISTINCT namespace, dag_name FROM history_runs ORDER BY namespace, dag_name', params: [] };
}
