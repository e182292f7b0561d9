/**
 * The suites of apiserver-routes.test.ts about requests and DAG names: what every route checks
 * of a request, and a DAG name free again once its DAG is deleted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../../apiserver/server.ts';
import type { ContractClient } from '../api-support.ts';
import type { RoutesStackRef } from './stack.ts';

/** The checks every route makes of a request: names, bodies, types and sizes. */
export function describeRequestChecks(stack: RoutesStackRef): void {
  describe('request checks common to all routes', () => {
    let api: ContractClient;
    let server: Server;
    beforeAll(() => {
      ({ api, server } = stack());
    });

    it.each([
      ['a bad file name', 'GET', '/api/v2/dags/bad.name', undefined, 400, 'bad_request'],
      ['an unknown DAG', 'GET', '/api/v2/dags/ghost', undefined, 404, 'not_found'],
      ['a missing required field', 'POST', '/api/v2/dags', {}, 400, 'bad_request'],
      ['a wrong type', 'POST', '/api/v2/dags', { name: 5 }, 400, 'bad_request'],
      [
        'a wrong type beside a field the body does not define',
        'POST',
        '/api/v2/dags/etl/start',
        { singleton: 'yes', colour: 'red' },
        400,
        'bad_request',
      ],
      [
        'a step status out of range',
        'PATCH',
        '/api/v2/dag-runs/etl/nope/steps/extract/status',
        { status: 9 },
        400,
        'bad_request',
      ],
      ['a DAG name over 40 characters', 'POST', '/api/v2/dags', { name: 'a'.repeat(41) }, 400, 'bad_request'],
      ['an invalid spec', 'POST', '/api/v2/dags', { name: 'broken', spec: 'steps: [{comand: x}]' }, 400, 'bad_request'],
      [
        'a PUT of the spec of an unknown DAG',
        'PUT',
        '/api/v2/dags/ghost/spec',
        { spec: 'steps: [echo]' },
        404,
        'not_found',
      ],
      ['a rename to a bad name', 'POST', '/api/v2/dags/etl/rename', { newFileName: 'a b' }, 400, 'bad_request'],
      ['a rename of an unknown DAG', 'POST', '/api/v2/dags/ghost/rename', { newFileName: 'other' }, 404, 'not_found'],
      ['a search without q', 'GET', '/api/v2/dags/search', undefined, 400, 'bad_request'],
      ['a search with a broken pattern', 'GET', '/api/v2/dags/search?q=(', undefined, 400, 'bad_request'],
      ['a start of an unknown DAG', 'POST', '/api/v2/dags/ghost/start', {}, 404, 'not_found'],
      ['a start with a bad run id', 'POST', '/api/v2/dags/etl/start', { dagRunId: 'no/slash' }, 400, 'bad_request'],
      ['a start with unparsable params', 'POST', '/api/v2/dags/etl/start', { params: 'A="open' }, 400, 'bad_request'],
      ['an inline run without a name', 'POST', '/api/v2/dag-runs', { spec: 'steps: [echo]' }, 400, 'bad_request'],
      [
        'an inline run with a bad name',
        'POST',
        '/api/v2/dag-runs',
        { spec: 'steps: [echo]', name: 'a b' },
        400,
        'bad_request',
      ],
      ['a suspend of an unknown DAG', 'POST', '/api/v2/dags/ghost/suspend', { suspend: true }, 404, 'not_found'],
      ['a stop-all of an unknown DAG', 'POST', '/api/v2/dags/ghost/stop-all', undefined, 404, 'not_found'],
      ['an unknown run', 'GET', '/api/v2/dag-runs/etl/nope', undefined, 404, 'not_found'],
      ['the latest run of a DAG that never ran', 'GET', '/api/v2/dag-runs/never/latest', undefined, 404, 'not_found'],
      ['a status filter out of range', 'GET', '/api/v2/dag-runs?status=7', undefined, 400, 'bad_request'],
      ['a log limit over 10000', 'GET', '/api/v2/dag-runs/etl/nope/log?limit=10001', undefined, 400, 'bad_request'],
      ['an unknown route', 'GET', '/api/v2/nothing', undefined, 404, 'not_found'],
    ] as const)('answers %s with the contract error', async (...[, method, url, body, status, code]) => {
      const res = await api.call(method, url, body);
      expect([res.status, (res.body as { code: string }).code]).toEqual([status, code]);
    });

    it('ignores fields a body does not define, as Dagu does', async () => {
      expect(
        (await api.call('POST', '/api/v2/dags', { name: 'extra', spec: 'steps: [echo extra]\n', colour: 'red' }))
          .status,
      ).toBe(201);
      expect((await api.call('GET', '/api/v2/dags/extra/spec')).body).toMatchObject({
        spec: 'steps: [echo extra]\n',
        errors: [],
      });
      expect(
        (await api.call('POST', '/api/v2/dags/validate', { spec: 'steps: [echo]', name: 'v', strict: true })).body,
      ).toMatchObject({ valid: true, dag: { name: 'v' } });
    });

    it('answers malformed JSON with 400 and an oversized body with 413, both as error objects', async () => {
      const malformed = await server.app.inject({
        method: 'POST',
        url: '/api/v2/dags',
        headers: { 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expect([malformed.statusCode, malformed.json<{ code: string }>().code]).toEqual([400, 'bad_request']);
      const big = await server.app.inject({
        method: 'POST',
        url: '/api/v2/dags/validate',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ spec: 'x'.repeat(2_000_000) }),
      });
      expect([big.statusCode, big.json<{ code: string }>().code]).toEqual([413, 'bad_request']);
    });
  });
}

/** A DAG name free again as soon as its DAG is deleted, whatever the cache has seen. */
export function describeRecreatedDags(stack: RoutesStackRef): void {
  describe('a DAG deleted and created again', () => {
    let api: ContractClient;
    let server: Server;
    let ns: string;
    beforeAll(() => {
      ({ api, server, ns } = stack());
    });

    it('is created again at once after each of 20 deletes, never refused as existing', async () => {
      await api.call('POST', '/api/v2/dags', { name: 'again' });
      const answers: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        const deleted = await api.call('DELETE', '/api/v2/dags/again');
        const created = await api.call('POST', '/api/v2/dags', {
          name: 'again',
          spec: `steps:\n  - echo ${String(i)}\n`,
        });
        answers.push(`${String(deleted.status)} ${String(created.status)}`);
      }
      expect(answers).toEqual(Array.from({ length: 20 }, () => '204 201'));
      expect((await api.call('GET', '/api/v2/dags/again/spec')).body).toMatchObject({ spec: 'steps:\n  - echo 19\n' });
    });

    it('is created again after a delete the cache has not seen yet, since the Kubernetes API says whether a name is taken', async () => {
      await api.call('POST', '/api/v2/dags', { name: 'unseen' });
      // The DAG watch stopped: the cache keeps the deleted DAG, as it does while a watch is down.
      await server.cache.dags.stop();
      try {
        expect((await api.call('DELETE', '/api/v2/dags/unseen')).status).toBe(204);
        expect(server.cache.dags.get(ns, 'unseen')).toBeDefined();
        expect((await api.call('POST', '/api/v2/dags', { name: 'unseen', spec: 'steps: [echo again]\n' })).status).toBe(
          201,
        );
        expect((await api.call('POST', '/api/v2/dags', { name: 'unseen' })).body).toMatchObject({
          code: 'already_exists',
        });
      } finally {
        await server.cache.dags.start();
      }
      expect((await api.call('GET', '/api/v2/dags/unseen/spec')).body).toMatchObject({ spec: 'steps: [echo again]\n' });
    });
  });
}
