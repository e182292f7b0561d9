/**
 * Reasons for the narrow 2.x combinations Kubedag refuses (a feature it reads, in a place where
 * it cannot be carried), and for the refusals named with what the file wrote. Each says why and
 * what to write instead; dialect-refusal.ts merges NARROW into DELIBERATE.
 */

/** A value published through a file the step Pod's runner reads back after the command. */
const FILE_READ_BACK =
  "the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere";
/** The advice for a value a command elsewhere would publish through a file. */
const PRINT_INSTEAD = 'print the value and publish it with output: {NAME: {from: stdout}}';

/** Why outputs (DAGU_OUTPUT_FILE) or `output` `from: file` cannot be read from a step that runs `where`. */
export function fileOutputWhy(where: string): string {
  return where === 'a sub-DAG step'
    ? "a sub-DAG step runs no command of its own in Kubedag (its work is the child run); publish the value from the child DAG's steps, or from a step after this one"
    : `${FILE_READ_BACK}; ${PRINT_INSTEAD}`;
}

/** Why a list of several commands cannot run on a step (a non-shell `type`, or a non-POSIX shell). */
export function severalCommandsWhy(shell: string | undefined): string {
  return shell === undefined
    ? "Kubedag runs a list of commands as one POSIX shell script through the step Pod's runner shell, which this step type does not run its command through; join them into one command with &&"
    : `Kubedag runs a list of commands as a POSIX shell script of subshells, which ${shell} cannot read; write one command, or the code as script:`;
}

/** Why a `${params.…}`, `${env.…}` or `${steps.…}` reference Kubedag did not resolve is refused. */
export function referenceWhy(scope: string): string {
  return scope === 'steps'
    ? 'Dagu 2.x resolves only ${steps.<id>.outputs.<name>} and leaves any other form as written; publish the value as an output of step <id> and write that form'
    : `the name after ${scope}. is not one a variable can have, and Kubedag passes ${scope} to steps as variables; use letters, digits and _`;
}

/** Why a `template_ref` that is neither a variable, a step's output nor text is refused. */
export const TEMPLATE_REF_WHY =
  'Kubedag resolves a template_ref that is a variable, ${steps.<id>.outputs.<name>} or a constant, and this reference is none of them; pass the template through one of those';

/** Fixed feature names -> why (merged into DELIBERATE). */
export const NARROW = {
  'foreach on a handler':
    'Kubedag fans out only steps under steps:, and a handler is one step run after them; call a sub-DAG from the handler whose step has the foreach',
  'foreach inside a foreach body':
    'a foreach body is one sub-DAG run per item, and Kubedag nests no second fan-out in it; call a sub-DAG from the body whose step has the inner foreach',
  'foreach.key with a backtick command':
    'the key is computed in the operator, which runs no user code; compute it in the step, or in an earlier step whose output the items carry',
  'foreach.collect with a backtick command':
    'collect expressions are evaluated in the operator, which runs no user code; publish the value as an output of a body step and collect ${steps.<id>.outputs.<name>}',
  '${foreach.…} references outside a foreach body':
    '${foreach.…} has a value only in the steps of a foreach body (Dagu leaves it as written elsewhere and reports it as a defect); move the step into foreach.steps',
  'approval on a handler_on step':
    'a handler runs after the steps have ended, with no run left for a person to hold; put the approval on a step under steps:',
  'shell_args without shell (arguments for the default shell)':
    "Dagu's default shell is its host's ($DAGU_DEFAULT_SHELL, else $SHELL, else sh), which a step Pod does not have; name the shell beside them (shell: sh or shell: bash)",
  'select other than a path such as .a.b[0] (a jq program would run in the operator)':
    'values are picked in the operator, which runs no user code; select a path such as .a.b[0], or run jq in the step and publish its stdout',
  'object-form output on a sub-DAG step':
    "a sub-DAG step has no stdout in Kubedag (its work is the child run); publish the value from the child DAG's steps",
  'stdout.outputs on a sub-DAG step':
    "a sub-DAG step has no stdout in Kubedag (its work is the child run); publish the value from the child DAG's steps",
  'outputs on a step that runs in the DAG-level container': `${FILE_READ_BACK} (the DAG-level container); ${PRINT_INSTEAD}`,
  'output from: file on a step that runs in the DAG-level container': `${FILE_READ_BACK} (the DAG-level container); ${PRINT_INSTEAD}`,
} as const satisfies Readonly<Record<string, string>>;
