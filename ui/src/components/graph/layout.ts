/**
 * Where each step of a step graph goes: steps are nodes, `depends` are edges, laid out by
 * dagre in ranks. Steps that wait on exactly the same steps run side by side, so they are
 * drawn as a parallel group: a box around them.
 *
 * Pure and independent of React: the page lays a graph out once per shape (names and
 * dependencies) and keeps the result while statuses change under it.
 */
import { graphlib, layout as dagreLayout } from '@dagrejs/dagre';

export interface GraphStep {
  readonly name: string;
  /** Names of the steps this one waits for; names that are not steps of the graph are ignored. */
  readonly depends: readonly string[];
  /** The step's status label as the API gives it (`succeeded`, `running`, ...); none before any run. */
  readonly status?: string;
  readonly description?: string;
  /** A second line under the name, such as the command. */
  readonly detail?: string;
  /** The step fans out over items (`parallel:`), each item a run of its own. */
  readonly parallel?: boolean;
}

export type Direction = 'LR' | 'TB';

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface PlacedNode {
  readonly name: string;
  /** Top-left corner. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PlacedEdge {
  readonly from: string;
  readonly to: string;
  /** An SVG path from the side of `from` that faces the next rank to the facing side of `to`. */
  readonly path: string;
}

export interface PlacedGroup {
  readonly id: string;
  readonly members: readonly string[];
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface GraphLayout {
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
  readonly groups: readonly PlacedGroup[];
  readonly width: number;
  readonly height: number;
}

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 50;
const GROUP_PADDING = 10;
const NODE_SEP = 18 + 2 * GROUP_PADDING;
const MARGIN = 16;

/** The graph's shape: what the layout depends on, and nothing it does not (statuses). */
export function shapeKey(steps: readonly Pick<GraphStep, 'name' | 'depends'>[], direction: Direction): string {
  return `${direction}\n${steps.map((step) => `${step.name}\t${step.depends.join('\t')}`).join('\n')}`;
}

/** The dependencies that are edges of the graph: known, not the step itself, each once. */
function knownDepends(step: Pick<GraphStep, 'name' | 'depends'>, names: ReadonlySet<string>): string[] {
  return [...new Set(step.depends)].filter((dep) => dep !== step.name && names.has(dep));
}

/**
 * Parallel groups: two or more steps that wait on exactly the same steps (after the same
 * predecessors, or all at the start). Members keep the order of `steps`. The layout draws a
 * box around a group whose members ended up side by side, which is nearly always so unless
 * each member fans out to steps of its own.
 */
export function parallelGroups(steps: readonly Pick<GraphStep, 'name' | 'depends'>[]): string[][] {
  const names = new Set(steps.map((step) => step.name));
  const byDepends = new Map<string, string[]>();
  for (const step of steps) {
    const key = knownDepends(step, names).sort().join('\n');
    const members = byDepends.get(key);
    if (members === undefined) byDepends.set(key, [step.name]);
    else members.push(step.name);
  }
  return [...byDepends.values()].filter((members) => members.length > 1);
}

type NodeLabel = { width: number; height: number; x?: number; y?: number };
type EdgeLabel = { points?: Point[] };

function buildGraph(
  steps: readonly Pick<GraphStep, 'name' | 'depends'>[],
  direction: Direction,
): graphlib.Graph<Record<string, unknown>, NodeLabel, EdgeLabel> {
  // Not a compound graph: dagre's clusters cost four times the time at 200 steps. Steps that
  // wait on the same steps get the same barycentre, so dagre puts them next to each other anyway.
  const graph = new graphlib.Graph<Record<string, unknown>, NodeLabel, EdgeLabel>();
  graph.setGraph({
    rankdir: direction,
    nodesep: NODE_SEP,
    ranksep: direction === 'LR' ? 56 : 44,
    edgesep: 10,
    marginx: MARGIN,
    marginy: MARGIN,
  });
  graph.setDefaultEdgeLabel(() => ({}));
  const names = new Set(steps.map((step) => step.name));
  for (const step of steps) graph.setNode(step.name, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const step of steps) for (const dep of knownDepends(step, names)) graph.setEdge(dep, step.name);
  return graph;
}

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const overlaps = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Members side by side: across the rank, no gap wider than the usual one between two steps. */
function sideBySide(boxes: readonly PlacedNode[], direction: Direction): boolean {
  const start = (b: PlacedNode): number => (direction === 'LR' ? b.y : b.x);
  const size = (b: PlacedNode): number => (direction === 'LR' ? b.height : b.width);
  const sorted = [...boxes].sort((a, b) => start(a) - start(b));
  return sorted.every((box, i) => {
    const before = sorted[i - 1];
    return before === undefined || start(box) - (start(before) + size(before)) <= NODE_SEP + 1;
  });
}

/**
 * The box around a group's members, or none when they are spread out (each with a fan of its
 * own between them: a box would cover half the picture) or another step sits inside it.
 */
function groupBox(
  members: readonly string[],
  placed: ReadonlyMap<string, PlacedNode>,
  direction: Direction,
): Box | undefined {
  const boxes = members.flatMap((name) => placed.get(name) ?? []);
  if (!sideBySide(boxes, direction)) return undefined;
  const x = Math.min(...boxes.map((b) => b.x)) - GROUP_PADDING;
  const y = Math.min(...boxes.map((b) => b.y)) - GROUP_PADDING;
  const box = {
    x,
    y,
    width: Math.max(...boxes.map((b) => b.x + b.width)) + GROUP_PADDING - x,
    height: Math.max(...boxes.map((b) => b.y + b.height)) + GROUP_PADDING - y,
  };
  const inside = new Set(members);
  for (const node of placed.values()) if (!inside.has(node.name) && overlaps(box, node)) return undefined;
  return box;
}

/** Lays the steps out; a step listed twice is placed once (the first). */
export function layoutGraph(
  input: readonly Pick<GraphStep, 'name' | 'depends'>[],
  direction: Direction = 'LR',
): GraphLayout {
  const seen = new Set<string>();
  const steps = input.filter((step) => !seen.has(step.name) && seen.add(step.name));
  if (steps.length === 0) return { nodes: [], edges: [], groups: [], width: 0, height: 0 };
  const graph = buildGraph(steps, direction);
  dagreLayout(graph);
  const nodes = steps.map((step): PlacedNode => {
    const label = graph.node(step.name);
    return {
      name: step.name,
      x: (label.x ?? 0) - label.width / 2,
      y: (label.y ?? 0) - label.height / 2,
      width: label.width,
      height: label.height,
    };
  });
  const placed = new Map(nodes.map((node) => [node.name, node]));
  const edges = graph.edges().map((edge): PlacedEdge => {
    const from = placed.get(edge.v) as PlacedNode;
    const to = placed.get(edge.w) as PlacedNode;
    return { from: edge.v, to: edge.w, path: edgePath(from, to, graph.edge(edge).points ?? [], direction) };
  });
  const groups = parallelGroups(steps).flatMap((members, index) => {
    const box = groupBox(members, placed, direction);
    return box === undefined ? [] : [{ id: `group-${String(index)}`, members, ...box }];
  });
  const label = graph.graph();
  return {
    nodes,
    edges,
    groups,
    width: Math.ceil(Number(label.width ?? 0)),
    height: Math.ceil(Number(label.height ?? 0)),
  };
}

const round = (n: number): string => String(Math.round(n * 10) / 10);
const at = (p: Point): string => `${round(p.x)},${round(p.y)}`;

/** Where edges leave a node and arrive at one: the middle of the sides facing along the ranks. */
function ports(from: PlacedNode, to: PlacedNode, direction: Direction): [Point, Point] {
  if (direction === 'LR')
    return [
      { x: from.x + from.width, y: from.y + from.height / 2 },
      { x: to.x, y: to.y + to.height / 2 },
    ];
  return [
    { x: from.x + from.width / 2, y: from.y + from.height },
    { x: to.x + to.width / 2, y: to.y },
  ];
}

/**
 * An edge as an SVG path. Between neighbouring ranks an S-curve from port to port; across more
 * ranks through dagre's bend points (which keep it clear of the steps in between), smoothed as a
 * B-spline (d3's curveBasis). dagre's own end points sit where the line from centre to centre
 * leaves the box, often a corner; ports on the facing sides read better.
 */
export function edgePath(
  from: PlacedNode,
  to: PlacedNode,
  dagrePoints: readonly Point[],
  direction: Direction,
): string {
  const [start, end] = ports(from, to, direction);
  const bends = dagrePoints.slice(1, -1);
  if (bends.length <= 1) {
    const c1 = direction === 'LR' ? { x: (start.x + end.x) / 2, y: start.y } : { x: start.x, y: (start.y + end.y) / 2 };
    const c2 = direction === 'LR' ? { x: (start.x + end.x) / 2, y: end.y } : { x: end.x, y: (start.y + end.y) / 2 };
    return `M${at(start)}C${at(c1)} ${at(c2)} ${at(end)}`;
  }
  return basis([start, ...bends, end]);
}

function basis(points: readonly Point[]): string {
  const first = points[0] as Point;
  const second = points[1] as Point;
  const curve = (p0: Point, p1: Point, p: Point): string =>
    `C${at({ x: (2 * p0.x + p1.x) / 3, y: (2 * p0.y + p1.y) / 3 })} ${at({ x: (p0.x + 2 * p1.x) / 3, y: (p0.y + 2 * p1.y) / 3 })} ${at({ x: (p0.x + 4 * p1.x + p.x) / 6, y: (p0.y + 4 * p1.y + p.y) / 6 })}`;
  let d = `M${at(first)}L${at({ x: (5 * first.x + second.x) / 6, y: (5 * first.y + second.y) / 6 })}`;
  for (let i = 2; i < points.length; i += 1)
    d += curve(points[i - 2] as Point, points[i - 1] as Point, points[i] as Point);
  const last = points[points.length - 1] as Point;
  return `${d}${curve(points[points.length - 2] as Point, last, last)}L${at(last)}`;
}
