/**
 * Dagu 2.x's `output_schema`, judged when an attempt succeeded: its stdout, trimmed, must be one
 * JSON value the step's schema accepts, else the step fails (v2.15.1 internal/runtime/node.go
 * evaluateOutputSchema, with its words). The validator is compiled once per schema
 * (core/dag/output-schema.ts). The error never quotes stdout, as Dagu's does not: it may hold
 * what the step should not show. Pure.
 */
import { outputSchemaValidator } from '../../../core/dag/output-schema.ts';

const PREFIX = 'failed to validate output_schema: ';

/** Why the stdout fails the schema, or undefined when it passes. */
export function outputSchemaError(
  schema: Readonly<Record<string, unknown>>,
  stdout: string,
  maxOutputSize: number,
): string | undefined {
  const trimmed = stdout.trim();
  if (trimmed === '') return `${PREFIX}output_schema requires stdout to contain a JSON value matching the schema`;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return `${PREFIX}failed to decode stdout JSON for output_schema`;
  }
  const validate = outputSchemaValidator(schema);
  if (validate instanceof Error) return `${PREFIX}failed to resolve output_schema: ${validate.message}`;
  if (!validate(value)) return `${PREFIX}stdout JSON does not match output_schema`;
  if (Buffer.byteLength(JSON.stringify(value)) > maxOutputSize)
    return `${PREFIX}output exceeded maximum size limit of ${String(maxOutputSize)} bytes`;
  return undefined;
}
