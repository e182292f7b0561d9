/**
 * A Dagu 2.x precondition as 1.x writes the same check. 2.x split 1.x's one `condition` in two
 * (internal/runtime/condition.go, internal/cmn/value/resolver.go): `eval` + `expected` expands
 * variables and runs backtick commands before it compares, which is what 1.x's `condition` +
 * `expected` does, so it becomes that; `condition` + `expected` compares the text with only
 * variables replaced, where 1.x would run a backtick in it, so such a condition is refused with
 * the spelling that keeps Dagu's meaning. A condition without `expected` is a command in both.
 * Dagu's own rules for the pair (one of the two, `expected` with `eval`) give its messages.
 */
import { hasCommandSubstitution } from './expand.ts';
import { childPath, issue, type DagIssue } from './issues.ts';

type Mapping = Record<string, unknown>;

/** The precondition mapping with `eval` written as 1.x's `condition`; what cannot be is an error. */
export function withPreconditionEval(input: Mapping, path: string, errors: DagIssue[]): Mapping {
  const hasExpected = Object.hasOwn(input, 'expected');
  if (!Object.hasOwn(input, 'eval')) {
    if (hasExpected && typeof input.condition === 'string' && hasCommandSubstitution(input.condition))
      errors.push(
        issue(
          childPath(path, 'condition'),
          'Dagu 2.x compares a condition with expected as written, without running its backtick command; write it as eval to run the command',
        ),
      );
    return input;
  }
  const { eval: expression, ...rest } = input;
  if (Object.hasOwn(input, 'condition')) {
    errors.push(issue(path, 'only one of condition or eval is allowed'));
    return rest;
  }
  if (typeof expression !== 'string' || expression.trim() === '') {
    errors.push(issue(childPath(path, 'eval'), 'eval must be a non-empty string'));
    return rest;
  }
  if (!hasExpected) {
    errors.push(issue(path, 'expected is required when eval is set'));
    return rest;
  }
  return { condition: expression, ...rest };
}
