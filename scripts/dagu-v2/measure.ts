/**
 * Kubedag's reading of Dagu v2.15.1's own DAG files, measured (issue 26). A manual check, not
 * part of `make test`:
 *
 *   node scripts/dagu-v2/measure.ts [--source-git=DIR] [--json=FILE] [--samples=N]
 *
 * Builds Dagu's CLI when it is missing (build.ts), takes the tag's tree and its DAG files
 * (corpus.ts), asks `dagu validate` about each, and for those Dagu accepts runs Kubedag's loader
 * and compares both built DAGs where both models can say the same thing (compare.ts). Prints a
 * table and writes the figures as JSON. docs/reports/2026-11-29-dagu-2x-corpus.md has them.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDag, type DagLoad } from '../../core/dag/index.ts';
import { DAGU_TAG, DEFAULT_SOURCE_GIT, ensureDaguCli } from './build.ts';
import { differences, fromDagu, fromKubedag, type Difference } from './compare.ts';
import { collectCorpus, type CorpusEntry } from './corpus.ts';
import { dumpAll, ensureDump, validateAll } from './dagu-read.ts';
import { groupCounts, refusalKind, type RefusalKind } from './measure-groups.ts';

const { values } = parseArgs({
  options: {
    'source-git': { type: 'string', default: DEFAULT_SOURCE_GIT },
    json: { type: 'string', default: join(tmpdir(), 'kubedag-dagu-corpus.json') },
    samples: { type: 'string', default: '3' },
  },
});
const samples = Number(values.samples);
const log = (line: string): void => {
  console.error(`[measure] ${line}`);
};

interface Outcome {
  readonly source: string;
  readonly kind: CorpusEntry['kind'];
  readonly dagu: 'accepted' | 'refused';
  readonly kubedag?: 'accepted' | 'refused';
  readonly errors?: { message: string; kind: RefusalKind }[];
  /** Present when both accept: the fields read otherwise than Dagu reads them (empty: the same). */
  readonly differences?: Difference[];
}

const dagu = await ensureDaguCli(values['source-git'], log);
const dump = await ensureDump(log);
const work = await mkdtemp(join(tmpdir(), 'kubedag-dagu-corpus-'));
try {
  const corpus = await collectCorpus(values['source-git'], DAGU_TAG, join(work, 'tree'), join(work, 'blocks'));
  log(`${corpus.length} DAG files; dagu validate on each (two at a time)`);
  const verdicts = await validateAll(
    dagu,
    corpus.map((entry) => entry.file),
  );
  const accepted = corpus.filter((entry) => verdicts.get(entry.file)?.accepted === true);
  log(`${accepted.length} accepted by Dagu; reading them with Dagu's loader and Kubedag's`);
  const built = await dumpAll(
    dump,
    accepted.map((entry) => entry.file),
  );
  const outcomes: Outcome[] = [];
  for (const entry of corpus) {
    if (verdicts.get(entry.file)?.accepted !== true) {
      outcomes.push({ source: entry.source, kind: entry.kind, dagu: 'refused' });
      continue;
    }
    const load = loadDag(await readFile(entry.file, 'utf8'), { fileName: entry.name });
    if (load.errors.length > 0) {
      const errors = load.errors.map((error) => ({
        message: `${error.path === '' ? '' : `${error.path}: `}${error.message}`,
        kind: refusalKind(error.message),
      }));
      outcomes.push({ source: entry.source, kind: entry.kind, dagu: 'accepted', kubedag: 'refused', errors });
      continue;
    }
    const daguDag = built.get(entry.file);
    const found =
      daguDag?.dag === undefined
        ? [{ field: 'dagu-load', dagu: daguDag?.error ?? 'no output', kubedag: '' }]
        : differences(fromDagu(daguDag.dag), fromKubedag(load.dag, foreachBodies(load)));
    outcomes.push({
      source: entry.source,
      kind: entry.kind,
      dagu: 'accepted',
      kubedag: 'accepted',
      differences: found,
    });
  }
  const figures = summarize(outcomes);
  printTable(figures);
  await writeFile(values.json, JSON.stringify({ tag: DAGU_TAG, figures, outcomes }, null, 2) + '\n');
  log(`figures and every file's outcome written to ${values.json}`);
} finally {
  await rm(work, { recursive: true, force: true });
}

/** The local DAGs Kubedag generated for foreach steps (a written local DAG has no `document`). */
function foreachBodies(load: DagLoad): Set<string> {
  return new Set(load.localDags.filter((local) => local.document !== undefined).map((local) => local.name));
}

function summarize(outcomes: readonly Outcome[]) {
  const daguAccepted = outcomes.filter((o) => o.dagu === 'accepted');
  const both = daguAccepted.filter((o) => o.kubedag === 'accepted');
  const refused = daguAccepted.filter((o) => o.kubedag === 'refused');
  const same = both.filter((o) => o.differences?.length === 0);
  const byKind = (list: readonly Outcome[]) => ({
    yaml: list.filter((o) => o.kind === 'yaml').length,
    markdown: list.filter((o) => o.kind === 'markdown').length,
    total: list.length,
  });
  // A file counts once per distinct message (paths dropped, quoted names kept as "…").
  const refusals = groupCounts(
    refused.map((o) => ({
      source: o.source,
      keys: (o.errors ?? []).map((e) => `${e.kind}\t${e.message.replace(/^[^ ]*: /, '')}`),
    })),
    samples,
  );
  // A file is deliberately refused when every error it gets is a deliberate refusal.
  const deliberate = refused.filter((o) => (o.errors ?? []).every((e) => e.kind === 'deliberate'));
  const misread = groupCounts(
    both.map((o) => ({ source: o.source, keys: (o.differences ?? []).map((d) => d.field) })),
    samples,
  );
  const examples = Object.fromEntries(
    misread.map((group) => {
      const first = both.find((o) => o.differences?.some((d) => d.field === group.key));
      return [group.key, first?.differences?.find((d) => d.field === group.key)];
    }),
  );
  return {
    files: byKind(outcomes),
    daguAccepted: byKind(daguAccepted),
    kubedagAccepted: byKind(both),
    readAsDagu: byKind(same),
    kubedagRefused: byKind(refused),
    deliberatelyRefused: byKind(deliberate),
    refusals,
    misread,
    misreadExamples: examples,
  };
}

function printTable(figures: ReturnType<typeof summarize>): void {
  const row = (label: string, counts: { yaml: number; markdown: number; total: number }): string =>
    `| ${label.padEnd(44)} | ${String(counts.yaml).padStart(5)} | ${String(counts.markdown).padStart(8)} | ${String(counts.total).padStart(5)} |`;
  console.log(`| ${`DAG files of Dagu ${DAGU_TAG}`.padEnd(44)} |  yaml | markdown | total |`);
  console.log(`|${'-'.repeat(46)}|------:|---------:|------:|`);
  console.log(row('in the corpus', figures.files));
  console.log(row('accepted by dagu validate', figures.daguAccepted));
  console.log(row('  of those, accepted by Kubedag', figures.kubedagAccepted));
  console.log(row('    read as Dagu reads them', figures.readAsDagu));
  console.log(row('  refused by Kubedag', figures.kubedagRefused));
  console.log(row('    only by deliberate refusals', figures.deliberatelyRefused));
  console.log('\nKubedag refusals (files; kind; message):');
  for (const group of figures.refusals) console.log(`${String(group.files).padStart(4)}  ${group.key.slice(0, 170)}`);
  console.log('\nRead otherwise than Dagu (files; field):');
  for (const group of figures.misread)
    console.log(`${String(group.files).padStart(4)}  ${group.key}  e.g. ${group.samples[0] ?? ''}`);
}
