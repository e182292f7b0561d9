/**
 * The small parts the custom resources' schemas (schemas.ts, run-status-schema.ts) are made of:
 * described strings and timestamps, kept-as-written objects, and the API conventions' condition.
 */
import Type, { type TSchema, type TString } from 'typebox';

/** A field kept exactly as written; core/dag validates it. */
export const preserved = (description: string): TSchema =>
  Type.Unsafe<unknown>({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
export const text = (description: string): ReturnType<typeof Type.String> => Type.String({ description });
export const timestamp = (description: string): ReturnType<typeof Type.String> =>
  Type.String({ description: `${description} (RFC 3339 UTC; empty when not yet).` });

/** Kubernetes API conventions condition. */
export const conditionSchema = Type.Object({
  type: text('Condition type, e.g. Valid or Running.'),
  status: Type.Enum(['True', 'False', 'Unknown'], { description: 'Whether the condition holds.' }),
  reason: text('One-word CamelCase reason.'),
  message: text('Human-readable detail.'),
  lastTransitionTime: text('When status last changed (RFC 3339).'),
  observedGeneration: Type.Optional(Type.Integer({ description: 'Generation the condition was computed for.' })),
});

export const stringMap = (description: string): ReturnType<typeof Type.Record<TString, TString>> =>
  Type.Record(Type.String(), Type.String(), { description });
