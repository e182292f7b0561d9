/**
 * A Dagu 2.x document rewritten in Dagu 1.x keys, as plain data (`kubedag convert --to 1.x`).
 * It is the loader's own reading of a 2.x file (readDialect: the 1.x shape the one normaliser
 * builds the model from), so the result means what the source means wherever it is carried:
 * constants written in, step defaults copied into each step, typed params as their JSON Schema,
 * actions as the 1.x step of the same work. What 1.x cannot say is a loss, left out.
 * docs/decisions/2026-11-29-dagu-2x-convert.md.
 */
import { decideDialect, readDialect } from './dialect.ts';
import { isRefusal } from './dialect-refusal.ts';
import { childPath, issue, nestIssues, type DagIssue } from './issues.ts';
import type { Rewrite } from './convert-to-2x.ts';
import { withoutOwnDockerSettings } from './convert-container.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

export function twoXToOneX(document: Mapping): Rewrite {
  const read = readDialect(document);
  // Refusals are 2.x features Kubedag does not run, so it has no 1.x form for them either;
  // any other error makes the file invalid, which the caller reports before converting.
  const losses = read.errors.filter(isRefusal);
  const oneX = isMapping(read.document)
    ? withoutTwoXOnly(withoutOwnDockerSettings(read.document, '1.x', losses), losses)
    : {};
  const marker = decideDialect(oneX);
  if (marker.dialect === '2.x' && marker.marker !== undefined)
    losses.push(issue(marker.marker.path, `"${marker.marker.key}" has no Dagu 1.x form`));
  // A foreach step calls its body as a local DAG (dialect-foreach.ts), so the 1.x file carries
  // that DAG as a document of its own: 1.x's `parallel` over a local DAG is the same run.
  const bodies = read.bodies.map((body) => {
    const rewritten = twoXToOneX(body.document);
    losses.push(...nestIssues(body.path, rewritten.losses));
    const { name, type, ...rest } = rewritten.document;
    return [{ name, type, ...rest }, ...(rewritten.documents ?? [])];
  });
  return { document: withTypeFirst(document, oneX), losses, documents: bodies.flat() };
}

/** The 2.x default type the reading wrote out goes where a reader looks for it: after the name. */
function withTypeFirst(source: Mapping, out: Mapping): Mapping {
  if (Object.hasOwn(source, 'type') || out.type === undefined) return out;
  const entries = Object.entries(out).filter(([key]) => key !== 'type');
  const at = entries.findIndex(([key]) => key === 'name') + 1;
  return Object.fromEntries([...entries.slice(0, at), ['type', out.type], ...entries.slice(at)]);
}

/**
 * Keys the 1.x shape keeps for Kubedag but Dagu 1.x never had: a step's declared `outputs`
 * (and with them the `${steps.<id>.outputs.<name>}` that read them) and a precondition's
 * `negate`.
 */
function withoutTwoXOnly(document: Mapping, losses: DagIssue[]): Mapping {
  const out = { ...document, ...withoutInPreconditions(document, '', losses) };
  if (Array.isArray(out.steps))
    out.steps = out.steps.map((step: unknown, i) => stepWithout(step, childPath('steps', i), losses));
  else if (isMapping(out.steps))
    out.steps = Object.fromEntries(
      Object.entries(out.steps).map(([name, step]) => [name, stepWithout(step, childPath('steps', name), losses)]),
    );
  if (isMapping(out.handlerOn))
    out.handlerOn = Object.fromEntries(
      Object.entries(out.handlerOn).flatMap(([name, step]) =>
        TWO_X_HANDLERS.includes(name)
          ? lost(losses, childPath('handler_on', name), `handler_on.${name} has no Dagu 1.x form`)
          : [[name, stepWithout(step, childPath('handler_on', name === 'cancel' ? 'abort' : name), losses)]],
      ),
    );
  return withoutWaitMail(out, losses);
}

/** Handlers Dagu 1.x does not have: `init` (before the first step) and `wait` (an approval wait). */
const TWO_X_HANDLERS: readonly string[] = ['init', 'wait'];

function lost(losses: DagIssue[], path: string, message: string): [] {
  losses.push(issue(path, message));
  return [];
}

/** Dagu 1.x mails no approval wait (it has none): `mail_on.wait` and `wait_mail` are not carried. */
function withoutWaitMail(document: Mapping, losses: DagIssue[]): Mapping {
  const { waitMail, ...out } = document;
  if (waitMail !== undefined) lost(losses, 'wait_mail', 'wait_mail has no Dagu 1.x form');
  if (isMapping(out.mailOn) && Object.hasOwn(out.mailOn, 'wait')) {
    const { wait, ...mailOn } = out.mailOn;
    if (wait !== false) lost(losses, childPath('mail_on', 'wait'), 'mail_on.wait has no Dagu 1.x form');
    out.mailOn = mailOn;
  }
  return out;
}

function stepWithout(step: unknown, path: string, losses: DagIssue[]): unknown {
  if (Array.isArray(step)) return step.map((item: unknown, i) => stepWithout(item, childPath(path, i), losses));
  if (!isMapping(step)) return step;
  const { outputs, ...kept } = step;
  // 1.x writes an executor's settings as `config:`; `with:` is 2.x's word for them.
  const rest = Object.hasOwn(kept, 'with') && !Object.hasOwn(kept, 'config') ? renamed(kept, 'with', 'config') : kept;
  if (outputs !== undefined)
    losses.push(
      issue(
        childPath(path, 'outputs'),
        'declared step outputs (and the ${steps.<id>.outputs.<name>} that read them) have no Dagu 1.x form',
      ),
    );
  return { ...withoutHttpSettings(rest, path, losses), ...withoutInPreconditions(rest, path, losses) };
}

/** http settings Dagu 2.x added: Kubedag reads them in a 1.x file too, Dagu 1.x ignores them. */
const HTTP_TWO_X_SETTINGS = ['form', 'files', 'format', 'output'];

function withoutHttpSettings(step: Mapping, path: string, losses: DagIssue[]): Mapping {
  const config = step.config;
  if (step.type !== 'http' || !isMapping(config)) return step;
  const kept: Mapping = {};
  for (const [key, value] of Object.entries(config))
    if (HTTP_TWO_X_SETTINGS.includes(key))
      lost(losses, childPath(childPath(path, 'with'), key), `http with.${key} has no Dagu 1.x form`);
    else kept[key] = value;
  return { ...step, config: kept };
}

function renamed(mapping: Mapping, from: string, to: string): Mapping {
  return Object.fromEntries(Object.entries(mapping).map(([key, value]) => [key === from ? to : key, value]));
}

function withoutInPreconditions(holder: Mapping, path: string, losses: DagIssue[]): Mapping {
  const conditions = holder.preconditions;
  if (conditions === undefined) return {};
  const at = childPath(path, 'preconditions');
  const strip = (condition: unknown, where: string): unknown => {
    if (!isMapping(condition) || !Object.hasOwn(condition, 'negate')) return condition;
    const { negate, ...rest } = condition;
    if (negate !== false) losses.push(issue(childPath(where, 'negate'), 'a negated precondition has no Dagu 1.x form'));
    return rest;
  };
  return {
    preconditions: Array.isArray(conditions)
      ? conditions.map((condition: unknown, i) => strip(condition, childPath(at, i)))
      : strip(conditions, at),
  };
}
