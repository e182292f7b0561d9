import { describe, expect, it } from 'vitest';
import { parseRemoteNodes } from './config-remote-nodes.ts';

describe('parseRemoteNodes', () => {
  const json = '[{"name":"a","baseUrl":"http://a"}]';
  const files: Record<string, string> = {
    '/etc/kubedag/nodes.json': json,
    '/etc/kubedag/bad.json': '[{"name":"local","baseUrl":"http://a"}]',
  };
  const readFile = (path: string): string => {
    const text = files[path];
    if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
    return text;
  };
  const inline = (text: string): Record<string, string> => ({ KUBEDAG_REMOTE_NODES: text });

  it('reads nodes with their optional auth and timeout', () => {
    const text = JSON.stringify([
      { name: 'a', baseUrl: 'http://a:8080/' },
      {
        name: 'b',
        baseUrl: 'https://b.example/dagu',
        auth: { basic: { username: 'u', password: '' } },
        timeoutMs: 5000,
      },
      { name: 'c', baseUrl: 'http://c', auth: { token: 't' } },
    ]);
    expect(parseRemoteNodes(inline(text), readFile)).toEqual([
      { name: 'a', baseUrl: 'http://a:8080' },
      {
        name: 'b',
        baseUrl: 'https://b.example/dagu',
        auth: { basic: { username: 'u', password: '' } },
        timeoutMs: 5000,
      },
      { name: 'c', baseUrl: 'http://c', auth: { token: 't' } },
    ]);
  });

  it.each([
    { name: 'no variable means no nodes', env: {}, nodes: [] },
    {
      name: 'empty variables mean no nodes',
      env: { KUBEDAG_REMOTE_NODES: '', KUBEDAG_REMOTE_NODES_FILE: '' },
      nodes: [],
    },
    { name: 'an empty list means no nodes', env: inline('[]'), nodes: [] },
    { name: 'KUBEDAG_REMOTE_NODES holds the JSON', env: inline(json), nodes: [{ name: 'a', baseUrl: 'http://a' }] },
    {
      name: 'KUBEDAG_REMOTE_NODES_FILE names a file holding it',
      env: { KUBEDAG_REMOTE_NODES_FILE: '/etc/kubedag/nodes.json' },
      nodes: [{ name: 'a', baseUrl: 'http://a' }],
    },
  ])('$name', ({ env, nodes }) => {
    expect(parseRemoteNodes(env, readFile)).toEqual(nodes);
  });

  it.each([
    { name: 'text that is not JSON', text: '[{', error: /^KUBEDAG_REMOTE_NODES: not JSON/ },
    { name: 'an object instead of a list', text: '{"name":"a"}', error: /^KUBEDAG_REMOTE_NODES must be an array$/ },
    { name: 'a node that is not an object', text: '["a"]', error: /^KUBEDAG_REMOTE_NODES: \[0\] must be an object$/ },
    {
      name: 'a missing name',
      text: '[{"baseUrl":"http://a"}]',
      error: /^KUBEDAG_REMOTE_NODES: \[0\]\.name is required$/,
    },
    {
      name: 'an empty name',
      text: '[{"name":"","baseUrl":"http://a"}]',
      error: /^KUBEDAG_REMOTE_NODES: \[0\]\.name: must not be blank$/,
    },
    {
      name: 'the reserved name local',
      text: '[{"name":"local","baseUrl":"http://a"}]',
      error: /\[0\]\.name: "local" is reserved for this server$/,
    },
    { name: 'a missing baseUrl', text: '[{"name":"a"}]', error: /^KUBEDAG_REMOTE_NODES: \[0\]\.baseUrl is required$/ },
    {
      name: 'a baseUrl that is not a URL',
      text: '[{"name":"a","baseUrl":"a:b:c/"}]',
      error: /baseUrl: (must be http or https|.* is not a URL)/,
    },
    {
      name: 'a relative baseUrl',
      text: '[{"name":"a","baseUrl":"/api"}]',
      error: /\[0\]\.baseUrl: "\/api" is not a URL$/,
    },
    {
      name: 'a baseUrl that is not http(s)',
      text: '[{"name":"a","baseUrl":"ftp://a"}]',
      error: /baseUrl: must be http or https, not ftp$/,
    },
    {
      name: 'a baseUrl with a query',
      text: '[{"name":"a","baseUrl":"http://a?x=1"}]',
      error: /baseUrl: must not have a query/,
    },
    {
      name: 'credentials in the baseUrl',
      text: '[{"name":"a","baseUrl":"http://u:p@a"}]',
      error: /baseUrl: put credentials in auth/,
    },
    {
      name: 'duplicate names',
      text: '[{"name":"a","baseUrl":"http://a"},{"name":"a","baseUrl":"http://b"}]',
      error: /^KUBEDAG_REMOTE_NODES: duplicate name "a"$/,
    },
    {
      name: 'a misspelt field',
      text: '[{"name":"a","baseURL":"http://a"}]',
      error: /^KUBEDAG_REMOTE_NODES: \[0\] has an unknown field "baseURL"$/,
    },
    {
      name: 'both basic and token',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"token":"t","basic":{"username":"u","password":"p"}}}]',
      error: /\[0\]\.auth: give basic or token, not both$/,
    },
    {
      name: 'an empty token',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"token":""}}]',
      error: /\[0\]\.auth\.token: must not be blank$/,
    },
    {
      name: 'basic without a password',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"basic":{"username":"u"}}}]',
      error: /\[0\]\.auth\.basic\.password is required$/,
    },
    {
      name: 'a username with a colon',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"basic":{"username":"u:v","password":"p"}}}]',
      error: /\[0\]\.auth\.basic\.username: must not contain ":"$/,
    },
    {
      name: 'a timeout that is not a positive integer',
      text: '[{"name":"a","baseUrl":"http://a","timeoutMs":0}]',
      error: /\[0\]\.timeoutMs must be >= 1$/,
    },
    {
      name: 'a timeout that is not a number',
      text: '[{"name":"a","baseUrl":"http://a","timeoutMs":"5s"}]',
      error: /\[0\]\.timeoutMs must be an integer$/,
    },
  ])('rejects $name', ({ text, error }) => {
    expect(() => parseRemoteNodes(inline(text), readFile)).toThrow(error);
  });

  it.each([
    {
      name: 'both variables',
      env: { KUBEDAG_REMOTE_NODES: json, KUBEDAG_REMOTE_NODES_FILE: '/etc/kubedag/nodes.json' },
      error: /not both/,
    },
    {
      name: 'a file that cannot be read',
      env: { KUBEDAG_REMOTE_NODES_FILE: '/nope.json' },
      error: /^KUBEDAG_REMOTE_NODES_FILE: cannot read \/nope\.json: ENOENT/,
    },
    {
      name: 'a file with a bad node, naming the file',
      env: { KUBEDAG_REMOTE_NODES_FILE: '/etc/kubedag/bad.json' },
      error: /^KUBEDAG_REMOTE_NODES_FILE \/etc\/kubedag\/bad\.json: \[0\]\.name: "local" is reserved/,
    },
  ])('rejects $name', ({ env, error }) => {
    expect(() => parseRemoteNodes(env, readFile)).toThrow(error);
  });
});
