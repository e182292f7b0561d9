/**
 * The API server as a fastify instance, built apart from `listen` so that tests drive it with
 * `inject`. Every answer that is not a success is the contract's `{code, message, details?}`:
 * malformed JSON, schema violations, oversized bodies and unknown routes included; only a
 * fault of ours is a 500.
 */
import { Ajv } from 'ajv';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { ApiError, ERROR_STATUS, type ErrorCode } from './errors.ts';
import { systemRoutes } from './routes/system.ts';

export interface AppDeps {
  readonly version: string;
  readonly clock: () => Date;
  /** Undefined when healthy, else why not (Kubernetes API unreachable, no operator leader). */
  readonly health: () => Promise<string | undefined>;
  /** Largest request body in bytes. */
  readonly bodyLimit?: number;
  readonly log?: (message: string) => void;
}

export const API_PREFIX = '/api/v2';

/** What fastify's own errors mean in the contract's codes. */
function fromFastify(error: FastifyError): ApiError {
  if (error.validation !== undefined) return new ApiError('bad_request', error.message);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('bad_request', 'request body too large', { status: 413 });
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return new ApiError('bad_request', `malformed JSON: ${error.message}`);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new ApiError('bad_request', 'the request body must be JSON');
  const status = error.statusCode ?? 500;
  const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === status)?.[0] ?? 'internal_error') as ErrorCode;
  return new ApiError(status < 500 ? code : 'internal_error', status < 500 ? error.message : 'internal error', { status: status < 500 ? status : 500 });
}

/**
 * Bodies are checked strictly: a wrong type or an unknown field is an error, never coerced or
 * dropped (fastify's default ajv does both). Query strings and path parameters arrive as text,
 * so there numbers and booleans are coerced from their text form.
 */
function validators(): (route: { schema: object; httpPart?: string }) => (data: unknown) => boolean {
  const strict = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: true });
  const textual = new Ajv({ allErrors: false, coerceTypes: 'array', removeAdditional: false, useDefaults: true });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : textual).compile(schema);
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const app = Fastify({ bodyLimit: deps.bodyLimit ?? 1_048_576 });
  app.setValidatorCompiler(validators());
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const api = error instanceof ApiError ? error : fromFastify(error);
    if (api.status >= 500) deps.log?.(`${api.code}: ${error.stack ?? error.message}`);
    return reply.code(api.status).send(api.body());
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(new ApiError('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`).body()));
  void app.register(
    (scope, _options, done) => {
      systemRoutes(scope, deps);
      done();
    },
    { prefix: API_PREFIX },
  );
  return app;
}
