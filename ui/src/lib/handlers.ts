/**
 * A DAG's handlers as the UI shows them, one list for the graph, the run page, the timeline
 * and the history grid. The API names a handler's node after its event (`onSuccess`), in a
 * run's details and in the grid's rows; the DAG's definition keys it by the event (`success`).
 *
 * Listed in the order a run meets them: init before the first step, wait while a step waits
 * for approval (Dagu 2.x's two; /api/v2 carries them only for DAGs that have them), then the
 * outcome handlers, and exit last.
 */

export const HANDLERS = [
  { key: 'onInit', event: 'init', title: 'On init' },
  { key: 'onWait', event: 'wait', title: 'On wait' },
  { key: 'onSuccess', event: 'success', title: 'On success' },
  { key: 'onFailure', event: 'failure', title: 'On failure' },
  { key: 'onCancel', event: 'cancel', title: 'On cancel' },
  { key: 'onExit', event: 'exit', title: 'On exit' },
] as const;

type Handler = (typeof HANDLERS)[number];
/** A handler's node name in the API (`onSuccess`). */
export type HandlerKey = Handler['key'];
/** A handler's key in the DAG's `handlerOn` (`success`). */
export type HandlerEvent = Handler['event'];

export const HANDLER_KEYS: readonly HandlerKey[] = HANDLERS.map((handler) => handler.key);

export function isHandlerKey(name: string): name is HandlerKey {
  return HANDLERS.some((handler) => handler.key === name);
}

/** Where a handler goes among the others (an unknown key last). */
export function handlerRank(key: string): number {
  const at = HANDLERS.findIndex((handler) => handler.key === key);
  return at === -1 ? HANDLERS.length : at;
}

export function handlerTitle(key: HandlerKey): string {
  return HANDLERS.find((handler) => handler.key === key)?.title ?? key;
}

/**
 * A run's handler nodes that ran, in order. The contract's four are null when they did not
 * run; onInit and onWait are left out of the answer as well, for a DAG without them.
 */
export function ranHandlers<N>(run: { readonly [K in HandlerKey]?: N | null }): {
  readonly key: HandlerKey;
  readonly node: N;
}[] {
  return HANDLER_KEYS.flatMap((key) => {
    const node = run[key];
    return node === null || node === undefined ? [] : [{ key, node }];
  });
}
