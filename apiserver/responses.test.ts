import { describe, expect, it } from 'vitest';
import { parseRouteError, routeErrors, type RouteShape } from './responses.ts';

const shape = (over: Partial<RouteShape>): RouteShape => ({
  permission: 'read',
  errors: [],
  validated: false,
  body: false,
  remoteNode: false,
  ...over,
});
const AUTH = { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } } as const;

describe("a route's error answers", () => {
  it.each([
    {
      name: 'a public route without input answers only 500',
      route: shape({ permission: 'public' }),
      context: AUTH,
      want: { 500: ['internal_error'] },
    },
    {
      name: 'a resource route answers 503 when the cluster cannot be read',
      route: shape({}),
      context: {},
      want: { 500: ['internal_error'], 503: ['service_unavailable'] },
    },
    {
      name: 'with credentials checked a resource route answers 401 and 403',
      route: shape({}),
      context: AUTH,
      want: { 401: ['unauthorized'], 403: ['forbidden'], 500: ['internal_error'], 503: ['service_unavailable'] },
    },
    {
      name: 'a public route never answers 401 or 403',
      route: shape({ permission: 'public', validated: true }),
      context: AUTH,
      want: { 400: ['bad_request'], 500: ['internal_error'] },
    },
    {
      name: 'validated input makes a 400',
      route: shape({ validated: true }),
      context: {},
      want: { 400: ['bad_request'], 500: ['internal_error'], 503: ['service_unavailable'] },
    },
    {
      name: 'a body makes 400 and 413',
      route: shape({ permission: 'public', validated: true, body: true }),
      context: {},
      want: { 400: ['bad_request'], 413: ['bad_request'], 500: ['internal_error'] },
    },
    {
      name: 'remoteNode makes 400 and 502 with both gateway codes',
      route: shape({ permission: 'public', remoteNode: true }),
      context: {},
      want: { 400: ['bad_request'], 500: ['internal_error'], 502: ['bad_gateway', 'remote_node_error'] },
    },
    {
      name: 'declared codes join their registered statuses, sorted',
      route: shape({ permission: 'public', errors: ['already_running', 'not_found', 'already_exists'] }),
      context: {},
      want: { 404: ['not_found'], 409: ['already_exists', 'already_running'], 500: ['internal_error'] },
    },
    {
      name: 'a declared code@status keeps the status the throw site picks',
      route: shape({ permission: 'public', errors: ['already_running@400', 'not_running'] }),
      context: {},
      want: { 400: ['already_running', 'not_running'], 500: ['internal_error'] },
    },
  ])('$name', ({ route, context, want }) => {
    expect(Object.fromEntries(routeErrors(route, context))).toEqual(want);
  });
});

describe('a declared error', () => {
  it.each([
    {
      name: 'a bare code has its registered status',
      declared: 'not_found' as const,
      want: { code: 'not_found', status: 404 },
    },
    {
      name: 'a code@status has the status given',
      declared: 'already_running@400' as const,
      want: { code: 'already_running', status: 400 },
    },
  ])('$name', ({ declared, want }) => {
    expect(parseRouteError(declared)).toEqual(want);
  });
});
