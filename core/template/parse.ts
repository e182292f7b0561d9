/**
 * A subset of Go's text/template, enough for Dagu 2.x's `template.render` as its documentation
 * uses it: text, `{{ pipeline }}` with `{{-`/`-}}` trimming and comments, fields (`.a.b`, `$`,
 * `$v.a`), literals, parenthesised pipelines, `|` pipelines, `if`/`else if`/`else`, `range`
 * (with `$i, $v :=`), `with`, and the functions of render.ts. Anything else (define, template,
 * block, break, continue, variable assignment outside range, unknown functions) is a parse
 * error that names it, so a DAG is refused when it is loaded, not when the step runs. Pure.
 * See docs/decisions/2026-11-29-dagu-2x-s3-archive-template.md.
 */

export type Operand =
  /** root: `dot` (`.`), `root` (`$`) or a range variable's name (`$v`). */
  | { readonly kind: 'field'; readonly root: string; readonly path: readonly string[] }
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Operand[] }
  | { readonly kind: 'pipe'; readonly pipe: Pipeline };

/** Commands joined by `|`: each later command gets the value before it as its last argument. */
export type Pipeline = readonly Operand[];

export type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'print'; readonly pipe: Pipeline }
  | { readonly kind: 'if' | 'with'; readonly pipe: Pipeline; readonly then: Node[]; readonly otherwise: Node[] }
  | {
      readonly kind: 'range';
      readonly pipe: Pipeline;
      readonly vars: readonly string[];
      readonly body: Node[];
      readonly otherwise: Node[];
    };

/** The functions render.ts has; a name outside them fails the parse, as Go's "function not defined". */
export const TEMPLATE_FUNCTIONS = [
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'len',
  'index',
  'print',
  'println',
  'printf',
  'upper',
  'lower',
  'trim',
  'default',
  'join',
  'split',
  'count',
  'add',
  'empty',
  'contains',
  'hasPrefix',
  'hasSuffix',
  'replace',
  'quote',
  'toJson',
] as const;

const UNSUPPORTED = ['define', 'template', 'block', 'break', 'continue'];

export class TemplateError extends Error {}

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(-?\d+(?:\.\d+)?)|(\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?)|([A-Za-z_][A-Za-z0-9_]*)|(\||\(|\)|:=|,))/y;

interface Token {
  readonly type: 'string' | 'number' | 'var' | 'field' | 'ident' | 'punct';
  readonly text: string;
}

function tokens(source: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    if (/^\s*$/.test(source.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(source);
    if (match === null) throw new TemplateError(`unexpected "${source.slice(TOKEN.lastIndex).trim()}" in action`);
    const [, dq, raw, num, variable, field, ident, punct] = match;
    if (dq !== undefined) out.push({ type: 'string', text: JSON.parse(dq) as string });
    else if (raw !== undefined) out.push({ type: 'string', text: raw.slice(1, -1) });
    else if (num !== undefined) out.push({ type: 'number', text: num });
    else if (variable !== undefined) out.push({ type: 'var', text: variable });
    else if (field !== undefined) out.push({ type: 'field', text: field });
    else if (ident !== undefined) out.push({ type: 'ident', text: ident });
    else out.push({ type: 'punct', text: punct ?? '' });
  }
  return out;
}

class Reader {
  private at = 0;
  private readonly list: readonly Token[];
  constructor(list: readonly Token[]) {
    this.list = list;
  }
  peek(): Token | undefined {
    return this.list[this.at];
  }
  next(): Token | undefined {
    return this.list[this.at++];
  }
  done(): boolean {
    return this.at >= this.list.length;
  }
}

function identifier(name: string): Operand {
  if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true' };
  if (name === 'nil') return { kind: 'literal', value: null };
  if (!(TEMPLATE_FUNCTIONS as readonly string[]).includes(name))
    throw new TemplateError(
      UNSUPPORTED.includes(name)
        ? `{{${name}}} is not supported by Kubedag's template.render`
        : `function "${name}" not defined (Kubedag's template.render has ${TEMPLATE_FUNCTIONS.join(', ')})`,
    );
  return { kind: 'call', name, args: [] };
}

function operand(reader: Reader): Operand {
  const token = reader.next();
  if (token === undefined) throw new TemplateError('missing value in action');
  switch (token.type) {
    case 'string':
      return { kind: 'literal', value: token.text };
    case 'number':
      return { kind: 'literal', value: Number(token.text) };
    case 'field':
      return { kind: 'field', root: 'dot', path: token.text.split('.').filter(Boolean) };
    case 'var': {
      const [name = '$', ...path] = token.text.split('.');
      return { kind: 'field', root: name === '$' ? 'root' : name, path };
    }
    case 'ident':
      return identifier(token.text);
    default:
      break;
  }
  if (token.text !== '(') throw new TemplateError(`unexpected "${token.text}" in action`);
  const pipe = pipeline(reader, ')');
  if (reader.next()?.text !== ')') throw new TemplateError('unclosed left paren');
  return { kind: 'pipe', pipe };
}

/** A command: a function with its arguments, or one operand. */
function command(reader: Reader, close: string): Operand {
  const first = operand(reader);
  const args: Operand[] = [];
  while (!reader.done() && reader.peek()?.text !== '|' && reader.peek()?.text !== close) args.push(operand(reader));
  if (first.kind === 'call') return { ...first, args };
  if (args.length > 0) throw new TemplateError("can't give argument to non-function");
  return first;
}

function pipeline(reader: Reader, close = ''): Pipeline {
  const commands = [command(reader, close)];
  while (reader.peek()?.text === '|') {
    reader.next();
    commands.push(command(reader, close));
  }
  return commands;
}

function parsePipe(source: string): Pipeline {
  const reader = new Reader(tokens(source));
  const pipe = pipeline(reader);
  if (!reader.done()) throw new TemplateError(`unexpected "${reader.peek()?.text ?? ''}" in action`);
  return pipe;
}

/** `$i, $v := pipeline` or `$v := pipeline` of a range. */
function rangeHead(source: string): { vars: string[]; pipe: Pipeline } {
  const match = /^\s*(\$[A-Za-z0-9_]+)\s*(?:,\s*(\$[A-Za-z0-9_]+)\s*)?:=(.*)$/s.exec(source);
  if (match === null) return { vars: [], pipe: parsePipe(source) };
  const vars = [match[1] ?? '', ...(match[2] === undefined ? [] : [match[2]])];
  return { vars, pipe: parsePipe(match[3] ?? '') };
}

interface Action {
  readonly body: string;
  readonly start: number;
  readonly end: number;
}

/** The template as text and actions, `{{-` and `-}}` trimming the white space beside them. */
function split(source: string): (string | Action)[] {
  const parts: (string | Action)[] = [];
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    if (open < 0) {
      parts.push(source.slice(at));
      break;
    }
    const close = source.indexOf('}}', open + 2);
    if (close < 0) throw new TemplateError('unclosed action');
    let text = source.slice(at, open);
    let body = source.slice(open + 2, close);
    if (/^-\s/.test(body)) {
      text = text.replace(/\s+$/, '');
      body = body.slice(1);
    }
    let next = close + 2;
    if (/\s-$/.test(body)) {
      body = body.slice(0, -1);
      const rest = /^\s*/.exec(source.slice(next))?.[0].length ?? 0;
      next += rest;
    }
    parts.push(text, { body: body.trim(), start: open, end: next });
    at = next;
  }
  return parts;
}

type Frame = {
  kind: 'if' | 'with' | 'range';
  node: Extract<Node, { kind: 'if' | 'with' | 'range' }>;
  inElse: boolean;
  chained: number;
};

type Stack = { frame?: Frame; nodes: Node[] }[];

/** One action of the template: a block opened, continued or closed, or a value printed. */
function action(stack: Stack, body: string): void {
  const top = stack[stack.length - 1] ?? { nodes: [] };
  const [word = '', ...rest] = body.split(/\s+/);
  const tail = body.slice(word.length);
  if (word === 'if' || word === 'with') {
    const node = { kind: word, pipe: parsePipe(tail), then: [], otherwise: [] } as Frame['node'] & { then: Node[] };
    top.nodes.push(node);
    stack.push({ frame: { kind: word, node, inElse: false, chained: 0 }, nodes: node.then });
  } else if (word === 'range') {
    const head = rangeHead(tail);
    const node = { kind: 'range' as const, pipe: head.pipe, vars: head.vars, body: [], otherwise: [] };
    top.nodes.push(node);
    stack.push({ frame: { kind: 'range', node, inElse: false, chained: 0 }, nodes: node.body });
  } else if (word === 'else') elseBranch(stack, rest, tail);
  else if (word === 'end') {
    if (top.frame === undefined) throw new TemplateError('unexpected {{end}}');
    stack.splice(stack.length - 1 - top.frame.chained, top.frame.chained + 1);
  } else if (UNSUPPORTED.includes(word))
    throw new TemplateError(`{{${word}}} is not supported by Kubedag's template.render`);
  else if (/^\$[A-Za-z0-9_]*\s*:?=/.test(body))
    throw new TemplateError("variables are not supported by Kubedag's template.render outside range");
  else top.nodes.push({ kind: 'print', pipe: parsePipe(body) });
}

export function parseTemplate(source: string): Node[] {
  const root: Node[] = [];
  const stack: Stack = [{ nodes: root }];
  for (const part of split(source)) {
    if (typeof part !== 'string') {
      if (!part.body.startsWith('/*')) action(stack, part.body);
      else if (!part.body.endsWith('*/')) throw new TemplateError('unclosed comment');
    } else if (part !== '') stack[stack.length - 1]?.nodes.push({ kind: 'text', text: part });
  }
  if (stack.length > 1)
    throw new TemplateError(`unexpected EOF: {{${stack[stack.length - 1]?.frame?.kind ?? ''}}} without {{end}}`);
  return root;
}

function elseBranch(stack: Stack, rest: string[], tail: string): void {
  const current = stack[stack.length - 1];
  const frame = current?.frame;
  if (current === undefined || frame === undefined || frame.inElse) throw new TemplateError('unexpected {{else}}');
  frame.inElse = true;
  current.nodes = frame.node.otherwise;
  if (rest[0] === 'if') {
    // `else if` is an if inside the else branch, ended by the same {{end}}.
    const node = { kind: 'if' as const, pipe: parsePipe(tail.trim().slice(2)), then: [], otherwise: [] };
    frame.node.otherwise.push(node);
    stack.push({ frame: { kind: 'if', node, inElse: false, chained: frame.chained + 1 }, nodes: node.then });
  } else if (rest.length > 0) throw new TemplateError(`unexpected "${rest.join(' ')}" after {{else}}`);
}
