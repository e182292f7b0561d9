import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.ts';
import { LINKS, linkName, operationRef, V1_LINKS } from './links.ts';

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, { links?: Record<string, { operationRef: string; parameters: Record<string, string> }> }>;
}

let paths: Record<string, Record<string, Operation>>;

/** Both APIs' links, checked against both documents (each has its own paths). */
const ALL = [...LINKS, ...V1_LINKS];

beforeAll(async () => {
  const [v2, v1] = (await Promise.all([openApiDocument('t'), openApiDocument('t', 'v1')])) as { paths: typeof paths }[];
  paths = { ...v2?.paths, ...v1?.paths };
});

/** The operation a link's `METHOD /path` names. */
const operation = (ref: string): Operation | undefined => {
  const [method = '', path = ''] = ref.split(' ');
  return paths[path]?.[method.toLowerCase()];
};

describe('the links of the document', () => {
  it('leave from answers the document declares', () => {
    const missing = ALL.filter((l) => {
      const [method = '', path = '', status = ''] = l.from.split(' ');
      return operation(`${method} ${path}`)?.responses[status] === undefined;
    });
    expect(missing.map((l) => l.from)).toEqual([]);
  });

  it('lead to operations the document has, giving every path parameter they need and no other', () => {
    const wrong = ALL.flatMap((l) => {
      const target = operation(l.to);
      if (target === undefined) return [`${l.to}: no such operation`];
      const needed = (target.parameters ?? [])
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort();
      const given = Object.keys(l.parameters).sort();
      return JSON.stringify(needed) === JSON.stringify(given)
        ? []
        : [`${l.from} -> ${l.to}: gives ${given.join(',')}, needs ${needed.join(',')}`];
    });
    expect(wrong).toEqual([]);
  });

  it('take request values only from parts the request has', () => {
    const wrong = ALL.filter((l) =>
      Object.values(l.parameters).some(
        (e) =>
          e.startsWith('$request.body') &&
          operation(l.from.split(' ').slice(0, 2).join(' '))?.requestBody === undefined,
      ),
    );
    expect(wrong.map((l) => `${l.from} -> ${l.to}`)).toEqual([]);
  });

  it('are named uniquely within their answer', () => {
    const names = ALL.map((l) => `${l.from} ${linkName(l)}`);
    expect(names.length - new Set(names).size).toBe(0);
  });

  it.each([
    { api: 'v2', link: LINKS[0] },
    { api: 'v1', link: V1_LINKS.at(-1) },
  ])('are in the rendered $api document as operationRefs', ({ link }) => {
    if (link === undefined) throw new Error('no links');
    const [method = '', path = '', status = ''] = link.from.split(' ');
    expect(paths[path]?.[method.toLowerCase()]?.responses[status]?.links?.[linkName(link)]).toEqual({
      operationRef: operationRef(link.to),
      parameters: link.parameters,
      description: link.description,
    });
  });
});

describe('an operationRef', () => {
  it.each([
    { name: 'escapes the slashes of the path', to: 'GET /api/v2/dags', want: '#/paths/~1api~1v2~1dags/get' },
    {
      name: 'keeps the braces of a path parameter',
      to: 'DELETE /api/v2/dags/{fileName}',
      want: '#/paths/~1api~1v2~1dags~1{fileName}/delete',
    },
  ])('$name', ({ to, want }) => {
    expect(operationRef(to)).toBe(want);
  });
});
