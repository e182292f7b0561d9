/**
 * The response schema parts of Dagu 2.x's step approval (v2.15.1 `api/v1/api.yaml`:
 * `ApprovalConfig` on a step, the approval fields of `Node`), shared by both APIs' step and node
 * (on /api/v2 they are Kubedag's additions, present only for a 2.x DAG's approval step).
 */
import Type from 'typebox';

const str = Type.String();
const strings = Type.Array(Type.String());
const inputs = (description: string) => Type.Record(Type.String(), Type.String(), { description });

export const approvalConfig = Type.Object(
  {
    prompt: Type.Optional(str),
    input: strings,
    required: strings,
    rewindTo: Type.Optional(str),
  },
  {
    description:
      "Dagu 2.x's approval gate: once the step's command succeeded it waits (7 on /api/v1) for a person to approve, reject or push back through /api/v1.",
  },
);

/** Present once a person answered the step (or the push-back it re-ran for). */
export const approvalNodeFields = {
  approvedAt: Type.Optional(Type.String({ description: 'RFC 3339 time the step was approved.' })),
  approvedBy: Type.Optional(Type.String({ description: 'Who approved the step.' })),
  approvalInputs: Type.Optional(inputs('Inputs given with the approval, keyed by the camel-case of each name.')),
  rejectedAt: Type.Optional(Type.String({ description: 'RFC 3339 time the step was rejected.' })),
  rejectedBy: Type.Optional(Type.String({ description: 'Who rejected the step.' })),
  rejectionReason: Type.Optional(Type.String({ description: 'The reason given with the rejection.' })),
  approvalIteration: Type.Optional(
    Type.Integer({ description: 'Push-backs so far of the approval this step (re-)ran for.' }),
  ),
  pushBackInputs: Type.Optional(inputs('Inputs of the last push-back, given to the step as environment variables.')),
  pushBackHistory: Type.Optional(
    Type.Array(
      Type.Object({
        iteration: Type.Integer({ minimum: 1 }),
        by: Type.Optional(str),
        at: Type.Optional(str),
        inputs: Type.Optional(Type.Record(Type.String(), Type.String())),
      }),
      { description: 'The push-backs this step re-ran for: Kubedag keeps the last one.' },
    ),
  ),
};
