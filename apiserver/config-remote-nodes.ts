/** Remote nodes from KUBEDAG_REMOTE_NODES or the file it names (docs/api-remote-nodes.md). */
import Type, { type Static } from 'typebox';
import { resolveSettings } from '../core/settings.ts';
import { checked } from './settings.ts';
import { AUTH_SETTINGS, duplicate, read, text, username, type Env, type ReadFile } from './config-auth.ts';

/** "local" is how a request says "here": a remote node of that name could never be reached. */
export const LOCAL_NODE = 'local';

/** What `new URL` accepts but a remote node's base cannot be; undefined when it is fine. */
function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be http or https, not ${url.protocol.slice(0, -1)}`;
  // The request's own path and query are appended, so the base can carry neither.
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  // fetch refuses such URLs at the first request; saying so at start is kinder.
  if (url.username !== '' || url.password !== '') return 'put credentials in auth, not in baseUrl';
  return undefined;
}

const remoteAuth = Type.Refine(
  Type.Object(
    {
      basic: Type.Optional(Type.Object({ username, password: Type.String() }, { additionalProperties: false })),
      token: Type.Optional(text),
    },
    { additionalProperties: false },
  ),
  (auth) => auth.basic === undefined || auth.token === undefined,
  () => 'give basic or token, not both',
);

/**
 * Unknown fields are errors, so that a misspelt `baseURL` fails at start, not as a request
 * sent without credentials.
 */
const remoteNode = Type.Object(
  {
    name: Type.Refine(
      text,
      (name) => name !== LOCAL_NODE,
      () => `"${LOCAL_NODE}" is reserved for this server`,
    ),
    baseUrl: Type.Refine(
      text,
      (url) => baseUrlProblem(url) === undefined,
      (url) => baseUrlProblem(url) ?? '',
    ),
    auth: Type.Optional(remoteAuth),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const remoteNodes = Type.Refine(
  Type.Array(remoteNode),
  (nodes) => duplicate(nodes.map((n) => n.name)) === undefined,
  (nodes) => `duplicate name "${duplicate(nodes.map((n) => n.name)) ?? ''}"`,
);

export type RemoteNode = Readonly<Static<typeof remoteNode>>;

/** Remote nodes from their JSON text: an array of nodes; `setting` says where the text came from. */
function remoteNodesFrom(json: string, setting: string): RemoteNode[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`${setting}: not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return checked(remoteNodes, parsed, setting).map((node) => ({ ...node, baseUrl: node.baseUrl.replace(/\/+$/, '') }));
}

/**
 * Remote nodes as configured in the environment: KUBEDAG_REMOTE_NODES holds the JSON itself,
 * KUBEDAG_REMOTE_NODES_FILE names a file holding it (a mounted Secret, since it carries
 * credentials). Neither set means no remote nodes; both set is an error, not a silent choice.
 */
export function parseRemoteNodes(env: Env, readFile: ReadFile): RemoteNode[] {
  const { remoteNodes: inline, remoteNodesFile: file } = resolveSettings(AUTH_SETTINGS, {}, env);
  if (inline !== undefined && file !== undefined)
    throw new Error('set KUBEDAG_REMOTE_NODES or KUBEDAG_REMOTE_NODES_FILE, not both');
  if (inline !== undefined) return remoteNodesFrom(inline, 'KUBEDAG_REMOTE_NODES');
  if (file === undefined) return [];
  return remoteNodesFrom(read(readFile, 'KUBEDAG_REMOTE_NODES_FILE', file), `KUBEDAG_REMOTE_NODES_FILE ${file}`);
}
