import { describe, expect, it } from 'vitest';
import { handlerRank, handlerTitle, isHandlerKey, ranHandlers } from './handlers.ts';

describe('ranHandlers', () => {
  const cases: { name: string; run: Record<string, string | null>; want: string[] }[] = [
    {
      name: 'the handlers that ran, in the order a run meets them, whatever the answer’s key order',
      run: { onExit: 'x', onSuccess: 's', onWait: 'w', onInit: 'i', onFailure: null, onCancel: null },
      want: ['onInit:i', 'onWait:w', 'onSuccess:s', 'onExit:x'],
    },
    {
      name: 'null and absent handlers alike did not run (/api/v2 leaves onInit and onWait out)',
      run: { onInit: null, onSuccess: null, onFailure: 'f', onCancel: null, onExit: null },
      want: ['onFailure:f'],
    },
    { name: 'none ran', run: { onSuccess: null, onFailure: null, onCancel: null, onExit: null }, want: [] },
  ];
  it.each(cases)('$name', ({ run, want }) => {
    expect(ranHandlers<string>(run).map(({ key, node }) => `${key}:${node}`)).toEqual(want);
  });
});

describe('the handler list', () => {
  it('ranks init and wait before the outcome handlers and exit last; an unknown key after all', () => {
    const keys = ['onExit', 'mystery', 'onCancel', 'onWait', 'onFailure', 'onInit', 'onSuccess'];
    expect(keys.sort((a, b) => handlerRank(a) - handlerRank(b))).toEqual([
      'onInit',
      'onWait',
      'onSuccess',
      'onFailure',
      'onCancel',
      'onExit',
      'mystery',
    ]);
  });

  it('titles each handler and tells a handler’s node name from a step’s', () => {
    expect([handlerTitle('onInit'), handlerTitle('onWait'), handlerTitle('onCancel')]).toEqual([
      'On init',
      'On wait',
      'On cancel',
    ]);
    expect(['onWait', 'onInit', 'onExit', 'wait', 'review'].map(isHandlerKey)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
