/**
 * `template.render`'s `with.template_ref`: the template is a value named by one complete scoped
 * reference (`${env.NAME}`, `${params.NAME}`, `${consts.NAME}`, `${steps.<id>.outputs.<name>}`),
 * as Dagu v2.15.1 takes it (internal/spec/step_v2.go normalizeTemplateAction, the reference
 * rules of internal/cmn/value/references.go parseExactRef). The check is on the file as
 * written, before constants are substituted and scoped references made variables. Pure.
 * See docs/decisions/2026-11-29-dagu-2x-s3-archive-template.md.
 */
import { childPath, issue, type DagIssue } from './issues.ts';

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The scopes Dagu accepts in an exact reference; `params` only as `params.NAME`. */
const SCOPES = ['consts', 'env', 'steps', 'foreach', 'inputs', 'outputs', 'context', 'params'];

const EXACT = /^\$\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+)+)\}$/;

/** Whether `text` is one complete scoped reference and nothing else (`${env.NAME}`, not `${NAME}` nor `x${env.A}`). */
export function isExactRef(text: string): boolean {
  const match = EXACT.exec(text);
  if (match === null) return false;
  const [, scope = '', rest = ''] = match;
  if (!SCOPES.includes(scope)) return false;
  return scope !== 'params' || rest.split('.').length === 2;
}

export const TEMPLATE_REF_MESSAGE = 'with.template_ref must be one complete scoped value reference such as ${env.NAME}';

/** Every template.render step of a document, wherever it is (steps, handlers, foreach bodies), whose template_ref is not an exact reference. */
export function templateRefErrors(value: unknown, path: string): DagIssue[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => templateRefErrors(item, childPath(path, i)));
  if (!isMapping(value)) return [];
  const own =
    value.action === 'template.render' &&
    isMapping(value.with) &&
    value.with.template_ref !== undefined &&
    value.with.template === undefined &&
    !(typeof value.with.template_ref === 'string' && isExactRef(value.with.template_ref))
      ? [issue(childPath(path, 'with'), TEMPLATE_REF_MESSAGE)]
      : [];
  return [
    ...own,
    ...Object.entries(value).flatMap(([key, item]) =>
      key === 'with' ? [] : templateRefErrors(item, childPath(path, key)),
    ),
  ];
}

/**
 * What a template_ref is after the loader's rewrite of named values: a variable of the run
 * (`${NAME}`, from `${env.NAME}` or `${params.NAME}`) or a step's output, both resolved when the
 * step runs; or, from a constant, already the template's text. Another scope stays a reference
 * Kubedag does not resolve here.
 */
export function templateRefKind(rewritten: string): 'variable' | 'step-output' | 'text' | 'unresolved' {
  if (/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(rewritten)) return 'variable';
  if (/^\$\{steps\.[A-Za-z][A-Za-z0-9_]*\.outputs\.[A-Za-z_][A-Za-z0-9_]*\}$/.test(rewritten)) return 'step-output';
  if (EXACT.test(rewritten)) return 'unresolved';
  return 'text';
}
