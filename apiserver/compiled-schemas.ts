/**
 * Request validators and response serializers, compiled once per schema in a process and shared
 * by every app built in it. A production process builds one app, so there this changes nothing;
 * the tests build hundreds, and each build compiled the same few hundred schemas again (ajv and
 * fast-json-stringify: 3 to 4 s an app, most of the unit stage's time).
 *
 * A compiled function depends only on the schema, the options and the shared schemas it may
 * refer to, so it is keyed by their JSON text: route schemas are often objects made afresh per
 * app. Each table is bounded; a schema program has a few hundred, so the bound is never met
 * unless schemas are generated without end, and then the oldest go.
 */
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Ajv, type ValidateFunction } from 'ajv';
import { withIntegerText } from './text-params.ts';

/** Most compiled functions a table keeps. */
export const MAX_COMPILED = 2_000;

/** A bounded table of compiled functions by key, the oldest dropped first. */
export class CompiledTable<F> {
  readonly #entries = new Map<string, F>();
  readonly #limit: number;

  constructor(limit = MAX_COMPILED) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, compile: () => F): F {
    const found = this.#entries.get(key);
    if (found !== undefined) return found;
    const made = compile();
    if (this.#entries.size >= this.#limit) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, made);
    return made;
  }
}

/**
 * Bodies are checked strictly for the fields they define: a wrong type or value is an error,
 * never coerced (fastify's default ajv coerces). A field a body does not define is dropped
 * before the route sees it, as Dagu ignores it (schemas.ts `requestBody`). Query strings and
 * path parameters arrive as text, so there numbers and booleans are coerced from their text form
 * (an integer written as one: text-params.ts).
 */
const strict = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: 'all', useDefaults: true });
const textual = new Ajv({ allErrors: false, coerceTypes: 'array', removeAdditional: false, useDefaults: true });
const validatorTable = new CompiledTable<(data: unknown) => boolean>();

/** Ajv compiles into its own table too, keyed by the schema object: emptied, as ours keeps the function. */
function compileOnce(ajv: Ajv, schema: object): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** fastify's validator compiler: the body strictly, every other part from text. */
export function validatorFor({ schema, httpPart }: { schema: object; httpPart?: string }): (data: unknown) => boolean {
  const body = httpPart === 'body';
  return validatorTable.get(`${body ? 'body' : 'text'} ${JSON.stringify(schema)}`, () =>
    body ? compileOnce(strict, schema) : withIntegerText(compileOnce(textual, schema), schema),
  );
}

const serializerTable = new CompiledTable<(doc: unknown) => string>();
const fastJsonStringify = SerializerSelector();

/**
 * fastify's serializer factory (fast-json-stringify, as fastify's default), called per plugin
 * context with the schemas shared there: a route's serializer is reused where the shared schemas
 * and options are the same.
 */
export function serializerFactory(
  externalSchemas?: unknown,
  options?: Parameters<typeof fastJsonStringify>[1],
): (route: { method: string; url: string; httpStatus: string; schema?: unknown }) => (doc: unknown) => string {
  const compile = fastJsonStringify(externalSchemas, options);
  const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
  return (route) => serializerTable.get(`${context} ${JSON.stringify(route.schema ?? null)}`, () => compile(route));
}
