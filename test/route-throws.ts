/**
 * What each API route's handler can throw, found by reading the source with the TypeScript
 * compiler: every `new ApiError(code, …, { status })` in the handler and in every function,
 * method or getter of the repository the handler reaches through calls or references, followed
 * transitively. A code given as a variable counts as every literal its type allows. Calls
 * through an interface (no body to read) are not followed; the answers they stand for
 * (503 for a cluster, 500 for anything) are every resource route's anyway (responses.ts).
 */
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ERROR_STATUS, type ErrorCode } from '../apiserver/errors.ts';

export interface RouteThrows {
  /** `METHOD /path` as registered, the route group's prefix not included. */
  readonly route: string;
  /** `code@status` of every ApiError the handler can reach. */
  readonly throws: ReadonlySet<string>;
}

const root = join(import.meta.dirname, '..');
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/**
 * The route files and what they import, except the largest libraries, which stay unresolved
 * (any): their types decide nothing here, and without them the program builds in a fraction of
 * the time. fastify's and TypeBox's stay, since they type the `cluster` a route plugin is given.
 */
const UNRESOLVED = /^(@kubernetes\/|ajv|undici|prom-client|@opentelemetry\/)/;

function program(files: readonly string[]): ts.Program {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const options = { ...ts.parseJsonConfigFileContent(config.config, ts.sys, root).options, noEmit: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containing, _redirect, compilerOptions) =>
    literals.map((literal) =>
      UNRESOLVED.test(literal.text)
        ? { resolvedModule: undefined }
        : ts.resolveModuleName(literal.text, containing, compilerOptions, host),
    );
  return ts.createProgram({ rootNames: files.map((f) => join(root, f)), options, host });
}

/** The string literals a expression's type allows: `'a'` for a literal, each member of a union of them. */
function literals(checker: ts.TypeChecker, node: ts.Expression): string[] {
  const type = checker.getTypeAtLocation(node);
  const members = type.isUnion() ? type.types : [type];
  return members.flatMap((t) => (t.isStringLiteral() ? [t.value] : t.isNumberLiteral() ? [String(t.value)] : []));
}

/** The path a route is registered at; a template's parts are expanded over their literal types. */
function paths(checker: ts.TypeChecker, node: ts.Expression): string[] {
  if (ts.isStringLiteralLike(node)) return [node.text];
  if (!ts.isTemplateExpression(node)) return literals(checker, node);
  let done = [node.head.text];
  for (const span of node.templateSpans) {
    const values = literals(checker, span.expression);
    done = done.flatMap((prefix) => values.map((value) => `${prefix}${value}${span.literal.text}`));
  }
  return done;
}

/** `code@status` of one `new ApiError(...)`. */
function apiErrors(checker: ts.TypeChecker, node: ts.NewExpression): string[] {
  const [codeArg, , options] = node.arguments ?? [];
  if (codeArg === undefined) return [];
  let status: string | undefined;
  if (options !== undefined && ts.isObjectLiteralExpression(options)) {
    const property = options.properties.find(
      (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === 'status',
    );
    status = property === undefined ? undefined : literals(checker, property.initializer)[0];
  }
  return literals(checker, codeArg).map((code) => `${code}@${status ?? String(ERROR_STATUS[code as ErrorCode])}`);
}

/** The function bodies a node's identifiers lead to, in the repository's own sources. */
function reached(checker: ts.TypeChecker, node: ts.Node): ts.Node[] {
  if (!ts.isIdentifier(node)) return [];
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0) symbol = checker.getAliasedSymbol(symbol);
  return (symbol?.declarations ?? []).flatMap((declaration): ts.Node[] => {
    const file = declaration.getSourceFile();
    if (file.isDeclarationFile || relative(root, file.fileName).startsWith('node_modules')) return [];
    if (
      ts.isFunctionDeclaration(declaration) ||
      ts.isMethodDeclaration(declaration) ||
      ts.isGetAccessorDeclaration(declaration)
    )
      return declaration.body === undefined ? [] : [declaration.body];
    if (
      ts.isVariableDeclaration(declaration) &&
      declaration.initializer !== undefined &&
      (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
    )
      return [declaration.initializer];
    return [];
  });
}

/** Every ApiError reachable from a handler. */
function throwsFrom(checker: ts.TypeChecker, handler: ts.Node): Set<string> {
  const found = new Set<string>();
  const seen = new Set<ts.Node>();
  const queue = [handler];
  while (queue.length > 0) {
    const next = queue.pop();
    if (next === undefined || seen.has(next)) continue;
    seen.add(next);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText() === 'ApiError')
        for (const e of apiErrors(checker, node)) found.add(e);
      queue.push(...reached(checker, node));
      ts.forEachChild(node, visit);
    };
    visit(next);
  }
  return found;
}

/** The routes registered in `files` (`app.get(path, options, handler)` and the like) and what each can throw. */
export function routeThrows(files: readonly string[]): RouteThrows[] {
  const built = program(files);
  const checker = built.getTypeChecker();
  const routes: RouteThrows[] = [];
  for (const file of files) {
    const source = built.getSourceFile(join(root, file));
    if (source === undefined) throw new Error(`${file} is not in the program`);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        METHODS.has(node.expression.name.text) &&
        node.arguments.length === 3
      ) {
        const [path, , handler] = node.arguments;
        if (path !== undefined && handler !== undefined) {
          const throws = throwsFrom(checker, handler);
          for (const p of paths(checker, path))
            routes.push({ route: `${node.expression.name.text.toUpperCase()} ${p}`, throws });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return routes;
}
