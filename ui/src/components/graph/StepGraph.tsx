/**
 * A step graph: steps as boxes coloured by status, `depends` as arrows, parallel groups boxed,
 * handlers in a row of their own beneath (they run after the steps, outside the graph). A graph
 * too big to lay out (big-graph.ts) is shown grouped by status instead (GroupedGraph.tsx).
 *
 * The layout (layout.ts) is computed once per shape and kept while statuses change, so a
 * polled page re-renders boxes, not dagre. Boxes are HTML buttons over an SVG of arrows: they
 * take focus, clicks and keys like any button, and long names end in an ellipsis.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { handlerRank, handlerTitle, type HandlerKey } from '../../lib/handlers.ts';
import { statusLook, type Tone } from '../../lib/status.ts';
import { drawsWhole } from './big-graph.ts';
import { GraphToolbar } from './GraphToolbar.tsx';
import { GroupedGraph } from './GroupedGraph.tsx';
import { layoutGraph, shapeKey, type Direction, type GraphLayout, type GraphStep, type PlacedNode } from './layout.ts';
import './graph.css';

export type { Direction, GraphStep } from './layout.ts';

export interface GraphHandler {
  /** Which handler it is (lib/handlers.ts): its title and its place in the row follow. */
  readonly event: HandlerKey;
  /** The handler's step name; the API names handler steps after their event (`onSuccess`). */
  readonly name?: string;
  readonly status?: string;
  readonly description?: string;
  readonly detail?: string;
}

export interface StepGraphProps {
  readonly steps: readonly GraphStep[];
  readonly handlers?: readonly GraphHandler[];
  /** Called with the step's (or handler's) name when its box is clicked or pressed. */
  readonly onSelect?: (name: string) => void;
  readonly selected?: string;
  /** The graph's accessible name. */
  readonly label?: string;
  /** By default left to right, top to bottom on narrow screens; the user can switch. */
  readonly initialDirection?: Direction;
  /** A graph too big to draw is grouped by status: this lists a group's steps elsewhere. */
  readonly onGroup?: (status: string) => void;
}

const MIN_FIT = 0.5;

function look(status: string | undefined): { readonly text: string; readonly tone: Tone | 'none' } {
  return status === undefined || status === '' ? { text: '', tone: 'none' } : statusLook(status);
}

interface BoxProps {
  readonly name: string;
  readonly title?: string;
  readonly status?: string;
  readonly description?: string;
  readonly detail?: string;
  readonly parallel?: boolean;
  readonly selected: boolean;
  readonly onSelect?: (name: string) => void;
  readonly style?: React.CSSProperties;
}

function StepBox({
  name,
  title,
  status,
  description,
  detail,
  parallel = false,
  selected,
  onSelect,
  style,
}: BoxProps): ReactNode {
  const { text, tone } = look(status);
  const second = text !== '' ? text : (detail ?? '');
  const tip = [title ?? name, description, detail].filter((part) => part !== undefined && part !== '').join('\n');
  const content = (
    <>
      <span className="graph-node-name">
        <span className="graph-node-dot" aria-hidden="true" />
        <span className="graph-node-text">{title ?? name}</span>
        {parallel ? (
          <span className="graph-node-fan" title="Runs once per item">
            <span aria-hidden="true">×n</span>
            <span className="visually-hidden">, once per item</span>
          </span>
        ) : null}
      </span>
      {second === '' ? null : <span className={`graph-node-detail${text === '' ? ' mono' : ''}`}>{second}</span>}
    </>
  );
  // A button is named by what it shows (the name, then the status or the command); a box that
  // is only a picture needs its name spelled out.
  if (onSelect === undefined) {
    return (
      <div
        className="graph-node"
        data-step={name}
        data-tone={tone}
        style={style}
        title={tip}
        role="img"
        aria-label={`${title ?? name}${text === '' ? '' : `: ${text}`}`}
      >
        {content}
      </div>
    );
  }
  return (
    <button
      type="button"
      className="graph-node"
      data-step={name}
      data-tone={tone}
      style={style}
      title={tip}
      aria-pressed={selected}
      onClick={() => {
        onSelect(name);
      }}
    >
      {content}
    </button>
  );
}

/** The viewport's width, for fitting the graph into it. */
function useWidth(element: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const target = element.current;
    if (target === null) return undefined;
    const observer = new ResizeObserver((entries) => {
      for (const entry of entries) setWidth(entry.contentRect.width);
    });
    observer.observe(target);
    return () => {
      observer.disconnect();
    };
  }, [element]);
  return width;
}

/** The boxes in reading order: by rank, then across the rank. Tab order follows it. */
function readingOrder(layout: GraphLayout, direction: Direction): PlacedNode[] {
  return [...layout.nodes].sort(
    direction === 'LR' ? (a, b) => a.x - b.x || a.y - b.y : (a, b) => a.y - b.y || a.x - b.x,
  );
}

interface CanvasProps {
  readonly layout: GraphLayout;
  readonly ordered: readonly PlacedNode[];
  readonly steps: ReadonlyMap<string, GraphStep>;
  readonly selected?: string;
  readonly onSelect?: (name: string) => void;
  readonly scale: number;
}

function Canvas({ layout, ordered, steps, selected, onSelect, scale }: CanvasProps): ReactNode {
  const box = (node: PlacedNode): React.CSSProperties => ({
    left: node.x,
    top: node.y,
    width: node.width,
    height: node.height,
  });
  return (
    <div className="graph-canvas" style={{ width: layout.width * scale, height: layout.height * scale }}>
      <div
        className="graph-plane"
        style={{
          width: layout.width,
          height: layout.height,
          transform: scale === 1 ? undefined : `scale(${String(scale)})`,
        }}
      >
        <svg className="graph-edges" width={layout.width} height={layout.height} aria-hidden="true">
          <defs>
            <marker
              id="graph-arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0L10,5L0,10z" />
            </marker>
          </defs>
          {layout.groups.map((group) => (
            <rect
              key={group.id}
              className="graph-group"
              x={group.x}
              y={group.y}
              width={group.width}
              height={group.height}
              rx={10}
            />
          ))}
          {layout.edges.map((edge) => (
            <path
              key={`${edge.from}\n${edge.to}`}
              className={`graph-edge${selected === edge.from || selected === edge.to ? ' graph-edge-active' : ''}`}
              d={edge.path}
              markerEnd="url(#graph-arrow)"
            />
          ))}
        </svg>
        {ordered.map((node) => {
          const step = steps.get(node.name);
          return (
            <StepBox
              key={node.name}
              name={node.name}
              status={step?.status}
              description={step?.description}
              detail={step?.detail}
              parallel={step?.parallel}
              selected={selected === node.name}
              onSelect={onSelect}
              style={box(node)}
            />
          );
        })}
      </div>
    </div>
  );
}

function Handlers({
  handlers,
  selected,
  onSelect,
}: {
  readonly handlers: readonly GraphHandler[];
  readonly selected?: string;
  readonly onSelect?: (name: string) => void;
}): ReactNode {
  const sorted = [...handlers].sort((a, b) => handlerRank(a.event) - handlerRank(b.event));
  return (
    <div className="graph-handlers" role="group" aria-label="Handlers">
      <p className="graph-handlers-title">Handlers</p>
      <ul>
        {sorted.map((handler) => (
          <li key={handler.event}>
            <StepBox
              name={handler.name ?? handler.event}
              title={handlerTitle(handler.event)}
              status={handler.status}
              description={handler.description}
              detail={handler.detail}
              selected={selected === (handler.name ?? handler.event)}
              onSelect={onSelect}
            />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Laid out again only when the shape changes: statuses arrive every few seconds. */
function useLayout(steps: readonly GraphStep[], direction: Direction): GraphLayout {
  const key = shapeKey(steps, direction);
  const [kept, setKept] = useState(() => ({ key, layout: layoutGraph(steps, direction) }));
  if (kept.key === key) return kept.layout;
  const next = { key, layout: layoutGraph(steps, direction) };
  setKept(next);
  return next.layout;
}

/** Left to right reads best on a wide screen; on a phone, top to bottom scrolls the natural way. */
const defaultDirection = (): Direction => (window.matchMedia('(max-width: 700px)').matches ? 'TB' : 'LR');

/**
 * Brings the first step into view when a graph is laid out: a tall or wide graph centres its
 * first rank, which can be far from the corner the viewport shows.
 */
function useFirstInView(
  viewport: React.RefObject<HTMLDivElement | null>,
  first: PlacedNode | undefined,
  scale: number,
  measured: boolean,
): void {
  const latest = useRef(scale);
  useEffect(() => {
    latest.current = scale;
  });
  useEffect(() => {
    const target = viewport.current;
    if (target === null || first === undefined || !measured) return;
    const s = latest.current;
    target.scrollTo({
      left: Math.max(0, first.x * s - 24),
      top: Math.max(0, (first.y + first.height / 2) * s - target.clientHeight / 2),
    });
  }, [viewport, first, measured]);
}

export function StepGraph(props: StepGraphProps): ReactNode {
  const { steps, handlers = [], onSelect, selected, label = 'Steps', onGroup } = props;
  if (drawsWhole(steps.length)) return <DrawnGraph {...props} />;
  return (
    <GroupedGraph
      steps={steps}
      label={label}
      onGroup={onGroup}
      drawWindow={(shown, caption) => (
        <DrawnGraph {...props} steps={shown} handlers={[]} label={caption} caption="In the order they are defined" />
      )}
      handlers={handlers.length === 0 ? null : <Handlers handlers={handlers} selected={selected} onSelect={onSelect} />}
    />
  );
}

/** The graph laid out and drawn whole: only for graphs drawsWhole allows. */
function DrawnGraph({
  steps,
  handlers = [],
  onSelect,
  selected,
  label = 'Steps',
  initialDirection,
  caption,
}: StepGraphProps & { readonly caption?: string }): ReactNode {
  const [direction, setDirection] = useState<Direction>(() => initialDirection ?? defaultDirection());
  const [zoom, setZoom] = useState<number | 'fit'>('fit');
  const viewport = useRef<HTMLDivElement>(null);
  const width = useWidth(viewport);
  const layout = useLayout(steps, direction);
  const ordered = useMemo(() => readingOrder(layout, direction), [layout, direction]);
  const byName = useMemo(() => new Map(steps.map((step) => [step.name, step])), [steps]);
  const fit = layout.width === 0 || width === 0 ? 1 : Math.max(MIN_FIT, Math.min(1, width / layout.width));
  const scale = zoom === 'fit' ? fit : zoom;
  useFirstInView(viewport, ordered[0], scale, width > 0);
  return (
    <div className="step-graph" role="group" aria-label={label}>
      <GraphToolbar
        count={caption ?? (steps.length === 1 ? '1 step' : `${String(steps.length)} steps`)}
        direction={direction}
        onDirection={setDirection}
        zoom={zoom}
        scale={scale}
        onZoom={setZoom}
      />
      <div className="graph-viewport" ref={viewport}>
        {steps.length === 0 ? (
          <p className="graph-empty muted">No steps.</p>
        ) : (
          <Canvas
            layout={layout}
            ordered={ordered}
            steps={byName}
            selected={selected}
            onSelect={onSelect}
            scale={scale}
          />
        )}
      </div>
      {handlers.length === 0 ? null : <Handlers handlers={handlers} selected={selected} onSelect={onSelect} />}
    </div>
  );
}
