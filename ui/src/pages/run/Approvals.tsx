/**
 * The run's approval steps (Dagu 2.x's `approval`): each step that waits for a person shows its
 * prompt and the inputs it asks for (required ones marked), and takes an answer: approve with
 * the inputs, push back with inputs (its steps run again), or reject with a reason. Then the
 * answers given so far. Read and answered through /api/v1 (approval-queries.ts), asked only for
 * a run whose definition has an approval step.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { isActive, type RunAddress } from './address.ts';
import { answerStep, approvalStepsQuery, type Answer, type V1Node } from './approval-queries.ts';
import {
  answeredMessage,
  answerLine,
  filledInputs,
  hasApprovalSteps,
  missingRequired,
  waitingSteps,
  type AnswerAction,
} from './approval.ts';
import { Dialog } from './Dialog.tsx';
import type { RunDetails } from './queries.ts';
import './approvals.css';

type Gate = NonNullable<V1Node['step']['approval']>;

function InputFields({
  gate,
  inputs,
  showMissing,
  onChange,
}: {
  readonly gate: Gate;
  readonly inputs: Readonly<Record<string, string>>;
  readonly showMissing: boolean;
  readonly onChange: (name: string, value: string) => void;
}): ReactNode {
  if (gate.input.length === 0) return null;
  return (
    <fieldset className="approval-inputs">
      <legend>Inputs</legend>
      {gate.input.map((name) => {
        const required = gate.required.includes(name);
        const blank = (inputs[name] ?? '').trim() === '';
        return (
          <label key={name} className="field">
            <span>
              <span className="mono">{name}</span>
              {required ? <span className="approval-required"> (required)</span> : null}
            </span>
            <input
              name={name}
              value={inputs[name] ?? ''}
              aria-required={required}
              aria-invalid={showMissing && required && blank}
              spellCheck={false}
              autoComplete="off"
              onChange={(event) => {
                onChange(name, event.target.value);
              }}
            />
          </label>
        );
      })}
    </fieldset>
  );
}

function RejectDialog({
  step,
  busy,
  problem,
  onReject,
  onClose,
}: {
  readonly step: string;
  readonly busy: boolean;
  readonly problem: string | undefined;
  readonly onReject: (reason: string) => void;
  readonly onClose: () => void;
}): ReactNode {
  const [reason, setReason] = useState('');
  const hint = useId();
  return (
    <Dialog
      open
      danger
      title={`Reject ${step}?`}
      confirm="Reject"
      busy={busy}
      problem={problem}
      onConfirm={() => {
        onReject(reason.trim());
      }}
      onClose={onClose}
    >
      <label className="field">
        <span>Reason</span>
        <textarea
          className="approval-reason"
          value={reason}
          rows={3}
          aria-describedby={hint}
          onChange={(event) => {
            setReason(event.target.value);
          }}
        />
        <small id={hint} className="field-hint">
          The steps after {step} do not run; the run ends rejected after its failure handler.
        </small>
      </label>
    </Dialog>
  );
}

/** Approve submits the form; push back sends the same inputs; reject asks for a reason first. */
function AnswerButtons({
  busy,
  pushBackTitle,
  onPushBack,
  onReject,
}: {
  readonly busy: boolean;
  readonly pushBackTitle: string;
  readonly onPushBack: () => void;
  readonly onReject: () => void;
}): ReactNode {
  return (
    <div className="approval-buttons">
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? 'Working…' : 'Approve'}
      </button>
      <button type="button" className="button" disabled={busy} title={pushBackTitle} onClick={onPushBack}>
        Push back
      </button>
      <button type="button" className="button button-danger" disabled={busy} onClick={onReject}>
        Reject…
      </button>
    </div>
  );
}

/** The step, how often it was pushed back, and what the person is asked. */
function GateHeading({
  name,
  gate,
  iteration,
}: {
  readonly name: string;
  readonly gate: Gate;
  readonly iteration: number | undefined;
}): ReactNode {
  return (
    <>
      <h3>
        <span className="mono">{name}</span> waits for approval
        {iteration === undefined ? null : <span className="muted"> (pushed back {String(iteration)}×)</span>}
      </h3>
      {gate.prompt === undefined ? null : <p className="approval-prompt">{gate.prompt}</p>}
    </>
  );
}

/** Sends an answer; once taken, everything about the run is read again. */
function useAnswer(address: RunAddress, name: string, onDone: (action: AnswerAction) => void) {
  const client = useApi();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (answer: Answer) => answerStep(client, address, name, answer),
    onSuccess: async (_, answer) => {
      onDone(answer.action);
      await queries.invalidateQueries({ queryKey: ['runs'] });
    },
  });
}

function WaitingStep({
  node,
  address,
  onAnswered,
}: {
  readonly node: V1Node;
  readonly address: RunAddress;
  readonly onAnswered: (action: AnswerAction) => void;
}): ReactNode {
  const gate = node.step.approval as Gate;
  const name = node.step.name;
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [tried, setTried] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const send = useAnswer(address, name, (action) => {
    setRejecting(false);
    onAnswered(action);
  });
  const missing = missingRequired(gate.required, inputs);
  const withInputs = (action: Exclude<AnswerAction, 'reject'>): void => {
    setTried(true);
    if (missing.length === 0) send.mutate({ action, inputs: filledInputs(inputs) });
  };
  // Taken: the section says so until the operator applies it and the step stops waiting.
  if (send.isSuccess) return null;
  return (
    <article className="approval-step" aria-label={`Approval of ${name}`}>
      <GateHeading name={name} gate={gate} iteration={node.approvalIteration} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          withInputs('approve');
        }}
      >
        <InputFields
          gate={gate}
          inputs={inputs}
          showMissing={tried}
          onChange={(input, value) => {
            setInputs((old) => ({ ...old, [input]: value }));
          }}
        />
        {tried && missing.length > 0 ? (
          <p className="dialog-problem" role="alert">
            Fill in the required {missing.length === 1 ? 'input' : 'inputs'}: {missing.join(', ')}.
          </p>
        ) : null}
        {send.error !== null && !rejecting ? (
          <p className="dialog-problem" role="alert">
            The server refused the answer: {send.error.message}
          </p>
        ) : null}
        <AnswerButtons
          busy={send.isPending}
          pushBackTitle={`Run ${gate.rewindTo ?? name} and the steps after it again, with these inputs`}
          onPushBack={() => {
            withInputs('push-back');
          }}
          onReject={() => {
            send.reset();
            setRejecting(true);
          }}
        />
      </form>
      {rejecting ? (
        <RejectDialog
          step={name}
          busy={send.isPending}
          problem={send.error?.message}
          onReject={(reason) => {
            send.mutate({ action: 'reject', reason });
          }}
          onClose={() => {
            setRejecting(false);
          }}
        />
      ) : null}
    </article>
  );
}

export function Approvals({ address, run }: { readonly address: RunAddress; readonly run: RunDetails }): ReactNode {
  const client = useApi();
  const enabled = hasApprovalSteps(run.nodes);
  const steps = useQuery(approvalStepsQuery(client, address, { enabled, live: isActive(run), status: run.status }));
  // The last answer this page sent, said until another is sent: the step it answered stops
  // waiting a moment later, and its form goes with it.
  const [notice, setNotice] = useState<string | undefined>();
  if (!enabled) return null;
  const nodes = steps.data ?? [];
  const waiting = waitingSteps(nodes);
  const answers = nodes.flatMap((n) => {
    const line = answerLine(n);
    return line === undefined ? [] : [{ name: n.step.name, line }];
  });
  if (waiting.length === 0 && answers.length === 0 && !steps.isError && notice === undefined) return null;
  return (
    <section className="card run-section approvals" aria-labelledby="run-approvals">
      <h2 id="run-approvals">Approval</h2>
      {steps.isError ? (
        <p className="dialog-problem" role="alert">
          Could not read the approval steps: {steps.error.message}
        </p>
      ) : null}
      {notice === undefined ? null : (
        <p className="approval-done" role="status">
          {notice}
        </p>
      )}
      {waiting.map((node) => (
        <WaitingStep
          key={`${node.step.name}#${String(node.approvalIteration ?? 0)}`}
          node={node}
          address={address}
          onAnswered={(action) => {
            setNotice(answeredMessage(action, node.step.name));
          }}
        />
      ))}
      {answers.length === 0 ? null : (
        <ul className="approval-answers">
          {answers.map((a) => (
            <li key={a.name}>
              <span className="mono">{a.name}</span>: {a.line}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
