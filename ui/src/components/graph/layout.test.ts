import { describe, expect, it } from 'vitest';
import { edgePath, layoutGraph, parallelGroups, shapeKey, type GraphStep, type PlacedNode } from './layout.ts';

const step = (name: string, ...depends: string[]): GraphStep => ({ name, depends });

describe('parallelGroups', () => {
  const cases: { name: string; steps: GraphStep[]; want: string[][] }[] = [
    { name: 'a chain has no group', steps: [step('a'), step('b', 'a'), step('c', 'b')], want: [] },
    {
      name: 'steps after the same step are a group',
      steps: [step('extract'), step('left', 'extract'), step('right', 'extract'), step('load', 'left', 'right')],
      want: [['left', 'right']],
    },
    {
      name: 'steps that start the run together are a group',
      steps: [step('a'), step('b'), step('c', 'a', 'b')],
      want: [['a', 'b']],
    },
    {
      name: 'the order of depends does not matter',
      steps: [step('a'), step('b'), step('x', 'a', 'b'), step('y', 'b', 'a')],
      want: [
        ['a', 'b'],
        ['x', 'y'],
      ],
    },
    {
      name: 'unknown dependencies are ignored, as the graph has no edge for them',
      steps: [step('a'), step('b', 'a', 'gone'), step('c', 'a')],
      want: [['b', 'c']],
    },
    {
      name: 'different predecessors are different groups',
      steps: [step('a'), step('b'), step('x', 'a'), step('y', 'b')],
      want: [['a', 'b']],
    },
  ];
  it.each(cases)('$name', ({ steps, want }) => {
    expect(parallelGroups(steps)).toEqual(want);
  });
});

describe('layoutGraph', () => {
  it('places every step once, left to right by dependency, with an edge per known dependency', () => {
    const layout = layoutGraph([
      step('extract'),
      step('left', 'extract'),
      step('right', 'extract'),
      step('load', 'left', 'right', 'missing'),
      step('extract'),
    ]);
    const x = Object.fromEntries(layout.nodes.map((node) => [node.name, node.x]));
    expect({
      names: layout.nodes.map((node) => node.name),
      ranks: [(x.extract ?? 0) < (x.left ?? 0), x.left === x.right, (x.right ?? 0) < (x.load ?? 0)],
      edges: layout.edges.map((edge) => `${edge.from}->${edge.to}`).sort(),
      groups: layout.groups.map((group) => group.members),
    }).toEqual({
      names: ['extract', 'left', 'right', 'load'],
      ranks: [true, true, true],
      edges: ['extract->left', 'extract->right', 'left->load', 'right->load'],
      groups: [['left', 'right']],
    });
  });

  it('boxes a group around its members, and the picture holds every box', () => {
    const layout = layoutGraph([step('a'), step('b', 'a'), step('c', 'a'), step('d', 'a')]);
    const group = layout.groups[0];
    const members = layout.nodes.filter((node) => node.name !== 'a');
    const inside = (node: PlacedNode): boolean =>
      group !== undefined &&
      node.x >= group.x &&
      node.y >= group.y &&
      node.x + node.width <= group.x + group.width &&
      node.y + node.height <= group.y + group.height;
    const fits = layout.nodes.every(
      (node) =>
        node.x >= 0 && node.y >= 0 && node.x + node.width <= layout.width && node.y + node.height <= layout.height,
    );
    expect([members.every(inside), inside(layout.nodes[0] as PlacedNode), fits]).toEqual([true, false, true]);
  });

  it('draws no box around a group whose members each fan out far apart', () => {
    const steps = [
      step('root'),
      ...['a', 'b'].flatMap((parent) => [
        step(parent, 'root'),
        ...[1, 2, 3, 4, 5, 6].map((n) => step(`${parent}${String(n)}`, parent)),
      ]),
    ];
    const layout = layoutGraph(steps);
    expect(layout.groups.map((group) => group.members)).toEqual([
      ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'],
      ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'],
    ]);
  });

  it('goes top to bottom when asked', () => {
    const layout = layoutGraph([step('a'), step('b', 'a')], 'TB');
    const [a, b] = layout.nodes;
    expect([a?.x === b?.x, (a?.y ?? 0) < (b?.y ?? 0)]).toEqual([true, true]);
  });

  it('lays out an empty graph as nothing', () => {
    expect(layoutGraph([])).toEqual({ nodes: [], edges: [], groups: [], width: 0, height: 0 });
  });

  it('lays out 300 steps in well under a second', () => {
    const steps = Array.from({ length: 300 }, (_, i) =>
      step(`s${String(i)}`, ...(i === 0 ? [] : [`s${String(Math.floor((i - 1) / 3))}`])),
    );
    const started = performance.now();
    const layout = layoutGraph(steps);
    expect([layout.nodes.length, performance.now() - started < 1000]).toEqual([300, true]);
  });
});

describe('edgePath', () => {
  const box = (x: number, y: number): PlacedNode => ({
    name: `${String(x)},${String(y)}`,
    x,
    y,
    width: 100,
    height: 40,
  });
  const cases: {
    name: string;
    from: PlacedNode;
    to: PlacedNode;
    points: { x: number; y: number }[];
    direction: 'LR' | 'TB';
    want: RegExp;
  }[] = [
    {
      name: 'left to right, neighbouring ranks: an S-curve from the right side to the left side',
      from: box(0, 0),
      to: box(150, 60),
      points: [
        { x: 90, y: 40 },
        { x: 125, y: 80 },
        { x: 150, y: 80 },
      ],
      direction: 'LR',
      want: /^M100,20C125,20 125,80 150,80$/,
    },
    {
      name: 'top to bottom: from the bottom side to the top side',
      from: box(0, 0),
      to: box(0, 100),
      points: [
        { x: 50, y: 40 },
        { x: 50, y: 100 },
      ],
      direction: 'TB',
      want: /^M50,40C50,70 50,70 50,100$/,
    },
    {
      name: 'across ranks: through the bend points, ending at the port',
      from: box(0, 0),
      to: box(400, 0),
      points: [
        { x: 100, y: 20 },
        { x: 150, y: 90 },
        { x: 250, y: 90 },
        { x: 350, y: 90 },
        { x: 400, y: 20 },
      ],
      direction: 'LR',
      want: /^M100,20L.*C.*L400,20$/,
    },
  ];
  it.each(cases)('$name', ({ from, to, points, direction, want }) => {
    expect(edgePath(from, to, points, direction)).toMatch(want);
  });
});

describe('shapeKey', () => {
  it('changes with names, dependencies and direction, never with statuses', () => {
    const base = [step('a'), { ...step('b', 'a'), status: 'running' }];
    const keys = [
      shapeKey(base, 'LR'),
      shapeKey([step('a'), { ...step('b', 'a'), status: 'failed' }], 'LR'),
      shapeKey([step('a'), step('b')], 'LR'),
      shapeKey(base, 'TB'),
    ];
    expect([keys[0] === keys[1], keys[0] === keys[2], keys[0] === keys[3]]).toEqual([true, false, false]);
  });
});
