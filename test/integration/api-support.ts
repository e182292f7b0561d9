/**
 * Driving the API server in e2e tests: one server per test file on the suite's control plane,
 * and a client whose every answer is checked against the OpenAPI document the server serves
 * (the declared schema for its status, the error shape for any error).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { parseApiConfig } from '../../apiserver/config.ts';
import { startServer, type Server, type ServerOptions } from '../../apiserver/server.ts';

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
  readonly headers: Record<string, unknown>;
}

/** `plugins`: hooks such as authentication, as main.ts registers them. */
export async function startApi(
  namespace: string,
  operatorUrl = 'http://127.0.0.1:1',
  plugins: ServerOptions['plugins'] = [],
): Promise<Server> {
  const config = parseApiConfig(
    [
      `--namespace=${namespace}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--operator-url=${operatorUrl}`,
      `--lease-namespace=${namespace}`,
    ],
    {},
  );
  return startServer({ config, version: 'test', plugins });
}

interface OpenApiOperation {
  requestBody?: { content?: Record<string, { schema?: object }> };
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}

/** A schema with its references to the document's components replaced by them, for ajv to compile alone. */
function inlined(schema: unknown, components: Record<string, object>): object {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/'))
      return walk(components[ref.slice('#/components/schemas/'.length)]);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
  };
  return walk(schema) as object;
}

/** Checks answers, and the bodies the server accepted, against the served OpenAPI document. */
export class ContractClient {
  private readonly app: FastifyInstance;
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private operations: { pattern: RegExp; method: string; operation: OpenApiOperation }[] = [];
  private readonly compiled = new Map<object, ValidateFunction>();
  private errorSchema: object | undefined;
  private components: Record<string, object> = {};
  /** How many answers were checked against a declared schema. */
  checked = 0;

  constructor(app: FastifyInstance) {
    this.app = app;
  }

  /** `document`: the served document answers are checked against (/api/v1's for a v1 client). */
  async load(document = '/api/v2/openapi.json'): Promise<void> {
    const doc = (await this.app.inject({ method: 'GET', url: document })).json<{
      paths: Record<string, Record<string, OpenApiOperation>>;
      components?: { schemas?: Record<string, object> };
    }>();
    const components = doc.components?.schemas ?? {};
    this.errorSchema = components.Error;
    this.components = components;
    this.operations = Object.entries(doc.paths).flatMap(([path, methods]) => {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return Object.entries(methods).map(([method, operation]) => ({
        pattern,
        method: method.toUpperCase(),
        operation,
      }));
    });
  }

  async call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<Answer> {
    const res = await this.app.inject({ method, url, ...(body === undefined ? {} : { payload: body as object }) });
    const text = res.body;
    const json =
      res.headers['content-type']?.toString().includes('json') === true && text !== ''
        ? (JSON.parse(text) as unknown)
        : undefined;
    this.check(method, url, res.statusCode, json, body);
    return { status: res.statusCode, body: json, text, headers: res.headers };
  }

  /** The operation a request reached, undefined for one outside the document (404, 405). */
  private operation(method: string, path: string, status: number): OpenApiOperation | undefined {
    const candidates = this.operations.filter((o) => o.method === method && o.pattern.test(path));
    // Fixed paths win over templated ones, as in the router.
    const match = candidates
      .sort((a, b) => b.pattern.source.split('[^/]+').length - a.pattern.source.split('[^/]+').length)
      .at(-1);
    if (match === undefined && status !== 404 && status !== 405)
      throw new Error(`${method} ${path} is not in the OpenAPI document`);
    return match?.operation;
  }

  private check(method: string, url: string, status: number, body: unknown, sent: unknown): void {
    const path = url.split('?')[0] ?? '';
    const operation = this.operation(method, path, status);
    if (status < 400 && sent !== undefined) this.checkSent(`${method} ${path} ${String(status)}`, operation, sent);
    const schema = this.answerSchema(`${method} ${path}`, operation, status);
    if (schema === undefined) {
      if (status >= 400) throw new Error('the OpenAPI document has no Error schema');
      return;
    }
    const validate = this.validator(schema);
    this.checked += 1;
    if (!validate(body))
      throw new Error(
        `${method} ${path} ${String(status)}: answer does not match the OpenAPI document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
      );
  }

  /** The schema an answer must match: its status's; an error without an operation, the error object's. */
  private answerSchema(at: string, operation: OpenApiOperation | undefined, status: number): object | undefined {
    // Every status an operation can answer is declared (apiserver/responses.ts); one that is not is drift.
    const response = operation?.responses?.[String(status)];
    if (operation !== undefined && response === undefined)
      throw new Error(`${at} answered ${String(status)}, which the OpenAPI document does not declare for it`);
    return response?.content?.['application/json']?.schema ?? (status >= 400 ? this.errorSchema : undefined);
  }

  /** A body the server took must be one the document allows (fields it ignores included). */
  private checkSent(at: string, operation: OpenApiOperation | undefined, sent: unknown): void {
    const schema = operation?.requestBody?.content?.['application/json']?.schema;
    if (schema !== undefined && !this.validator(schema)(sent))
      throw new Error(
        `${at}: the server accepted a body the OpenAPI document refuses: ${JSON.stringify(sent).slice(0, 500)}`,
      );
  }

  private validator(schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(inlined(schema, this.components));
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}
