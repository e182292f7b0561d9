/**
 * Dagu 2.x's step `approval`: after its command succeeds, the step waits for a person to
 * approve, reject or push it back (v2.15.1 `internal/spec/step.go` `approvalConfig`,
 * `buildStepApproval`). Checked here with Dagu's rules and kept for the 1.x reader as
 * `approval: {prompt, input, required, rewindTo}` (1.x has no spelling of it, so the key marks
 * a file as 2.x, as `outputs` does). Where `rewind_to` may point is checked with the other
 * step references (approval.ts). Pure.
 */
import { refusal } from './dialect-refusal.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

const KEYS = ['prompt', 'input', 'required', 'rewind_to'];

function strings(value: unknown, path: string, errors: DagIssue[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    errors.push(issue(path, 'must be a sequence of strings'));
    return undefined;
  }
  return (value as string[]).map((v) => v.trim());
}

/** A step's `approval` in the 1.x shape, or taken out with the errors that say why. */
export function withApproval(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(step, 'approval')) return step;
  const { approval, ...rest } = step;
  const at = childPath(path, 'approval');
  // A handler runs after the steps have ended: there is no run left for a person to hold.
  if (/^handler_?[oO]n\b/.test(path)) {
    errors.push(refusal(at, 'approval on a handler_on step'));
    return rest;
  }
  if (!isMapping(approval)) {
    errors.push(issue(at, 'must be a mapping'));
    return rest;
  }
  const read = readApproval(approval, at, errors);
  return read === undefined ? rest : { ...rest, approval: read };
}

function text(value: unknown, path: string, errors: DagIssue[]): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  errors.push(issue(path, 'must be a string'));
  return '';
}

function readApproval(approval: Mapping, at: string, errors: DagIssue[]): Mapping | undefined {
  const before = errors.length;
  for (const key of Object.keys(approval))
    if (!KEYS.includes(key)) errors.push(issue(childPath(at, key), `unknown key (approval takes ${KEYS.join(', ')})`));
  const prompt = text(approval.prompt, childPath(at, 'prompt'), errors);
  const target = text(approval.rewind_to, childPath(at, 'rewind_to'), errors).trim();
  const input = strings(approval.input, childPath(at, 'input'), errors) ?? [];
  const required = strings(approval.required, childPath(at, 'required'), errors) ?? [];
  // Dagu's wording (buildStepApproval).
  for (const name of required)
    if (!input.includes(name))
      errors.push(issue(childPath(at, 'required'), `required field "${name}" is not in input list`));
  if (errors.length > before) return undefined;
  return {
    ...(prompt === '' ? {} : { prompt }),
    ...(input.length === 0 ? {} : { input }),
    ...(required.length === 0 ? {} : { required }),
    ...(target === '' ? {} : { rewindTo: target }),
  };
}
