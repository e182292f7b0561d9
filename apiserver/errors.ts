/**
 * The contract's error codes and the HTTP status each is answered with: one registry, so that
 * a route throws a code and never picks a status itself. Where the contract uses one code with
 * two statuses (already_running: 409 on start, 400 on retry), the throw site says which.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  // Not in the contract (its router answers 404 or 405): a known path asked with a method it lacks.
  method_not_allowed: 405,
  already_exists: 409,
  already_running: 409,
  max_run_reached: 409,
  not_running: 400,
  internal_error: 500,
  // Not in either contract's list: an operation of Dagu's own product that Kubedag does not offer (/api/v1).
  not_implemented: 501,
  service_unavailable: 503,
  // The contract leaves these two statuses open (behaviour-notes: remoteNode).
  bad_gateway: 502,
  remote_node_error: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: { status?: number; details?: Record<string, unknown> } = {}) {
    super(message);
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    if (options.details !== undefined) this.details = options.details;
  }

  body(): ErrorBody {
    return { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) };
  }
}

/**
 * A catch handler for a Kubernetes call: the error the call can expect (`expected`, e.g.
 * isAlreadyExists) becomes the contract's error that `answer` makes; any other is thrown on.
 */
export function rethrowAs(expected: (error: unknown) => boolean, answer: () => ApiError): (error: unknown) => never {
  return (error) => {
    throw expected(error) ? answer() : error;
  };
}
