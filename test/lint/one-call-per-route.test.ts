// One gRPC call per route (a house rule): a gateway route authenticates,
// maps HTTP to one downstream call and the answer back. Coordinating services (ask one, then
// another) belongs in the service that owns the resource, behind one RPC, where it can fail
// closed and be tested with the data. This test reads the gateway's route files with the
// TypeScript checker (`app.get(...)` registrations and declared endpoints, `defineEndpoint`,
// alike) and names every route handler that can reach more than one call site of
// a downstream client: calls made directly, through a client handed to a helper, or through
// any function of the gateway the handler calls (followed across files). Two calls on
// different branches count as two: list such a route below with its reason.
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..', '..');
const gatewaySrc = path.join(root, 'services', 'gateway', 'src');
const routesDir = path.join(gatewaySrc, 'routes');
const clientsFile = path.join(gatewaySrc, 'clients.ts');
/** Declared endpoints that break the rule on purpose: proof the reader finds such a handler. */
const fixtureDir = path.join(root, 'test', 'lint', 'fixtures', 'one-call');

/**
 * Routes allowed more than one downstream call, each with why (`<file under routes/> METHOD
 * path`). A ratchet, like PENDING: an entry whose route no longer makes more than one call
 * fails the test, so neither list outlives its reason.
 */
const EXCEPTIONS: Record<string, string> = {
  'bulk-mint/create.ts POST /api/bulk-mint':
    'one call per request: the CSV form (CreateCsvJob) or the order form (CreateOrderJob), by content type',
  'bulk-mint/jobs.ts GET /api/bulk-mint/:jobId':
    'one service: the job (GetJob), then, only for `vouchers=all` or a CSV job with more errors than fit inline, its stream',
  'media/index.ts GET /media/:id':
    "one call unless an old `med_…` id is not moved yet: then bulk's copy (the move's fallback, gone with it)",
};

/**
 * Routes that coordinate services today, each with where the coordination is to go. Not a
 * licence: the list only shrinks.
 */
const PENDING: Record<string, string> = {};

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all']);

interface RouteHandler {
  key: string;
  fn: ts.Node;
}

function loadProgram(): ts.Program {
  const configPath = path.join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const files = parsed.fileNames.filter((f) => f.startsWith(gatewaySrc + path.sep));
  return ts.createProgram([...files, path.join(fixtureDir, 'two-calls.ts')], parsed.options);
}

const isFunctionLike = (n: ts.Node): n is ts.FunctionLikeDeclaration =>
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n) ||
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n);

const isDefineEndpoint = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineEndpoint';

/**
 * The route handlers of one file: `app.<method>(path, [options,] handler)`, `app.route({ method,
 * url, handler })` and declared endpoints, `defineEndpoint({ method, url, handler, ... })`. A
 * declaration is read with the checker, so its method and url may be constants, its handler a
 * named function or shorthand, and its fields spread from a shared object; `?` in a key means
 * a part could not be read (a test below refuses that).
 */
function handlersOf(file: ts.SourceFile, checker: ts.TypeChecker, base = routesDir): RouteHandler[] {
  const rel = path.relative(base, file.fileName);
  const out: RouteHandler[] = [];
  /** The function a handler expression names: inline, or declared elsewhere. */
  const functionOf = (expr: ts.Node | undefined): ts.Node | null => {
    if (!expr) return null;
    if (isFunctionLike(expr)) return expr;
    if (!ts.isIdentifier(expr)) return null;
    let symbol = ts.isShorthandPropertyAssignment(expr.parent)
      ? checker.getShorthandAssignmentValueSymbol(expr.parent)
      : checker.getSymbolAtLocation(expr);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    for (const d of symbol?.declarations ?? []) {
      const body = ts.isVariableDeclaration(d) ? d.initializer : d;
      if (body && isFunctionLike(body)) return body;
    }
    return null;
  };
  /** The object's own properties and those of objects spread into it (`...shared`). */
  const propertiesOf = (o: ts.ObjectLiteralExpression): ts.ObjectLiteralElementLike[] =>
    o.properties.flatMap((p) => {
      if (!ts.isSpreadAssignment(p)) return [p];
      const symbol = checker.getSymbolAtLocation(p.expression);
      const target =
        symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const d = target?.declarations?.find(ts.isVariableDeclaration);
      let init = d?.initializer;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
      return init && ts.isObjectLiteralExpression(init) ? propertiesOf(init) : [];
    });
  const propIn = (props: ts.ObjectLiteralElementLike[], name: string) =>
    props.filter((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name).at(-1);
  /** A string field: a literal, or anything the checker types as one string literal. */
  const textOf = (p: ts.ObjectLiteralElementLike | undefined): string => {
    if (!p) return '?';
    const at = ts.isPropertyAssignment(p)
      ? p.initializer
      : ts.isShorthandPropertyAssignment(p)
        ? p.name
        : null;
    if (!at) return '?';
    if (ts.isStringLiteralLike(at)) return at.text;
    const type = checker.getTypeAtLocation(at);
    return type.isStringLiteral() ? type.value : '?';
  };
  const handlerOf = (p: ts.ObjectLiteralElementLike | undefined) =>
    !p
      ? null
      : ts.isPropertyAssignment(p)
        ? functionOf(p.initializer)
        : ts.isShorthandPropertyAssignment(p)
          ? functionOf(p.name)
          : isFunctionLike(p)
            ? p
            : null;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const last = node.arguments[node.arguments.length - 1];
      const first = node.arguments[0];
      const isPath = first && ts.isStringLiteralLike(first) && first.text.startsWith('/');
      if (ROUTE_METHODS.has(method) && last && isFunctionLike(last) && isPath) {
        out.push({ key: `${rel} ${method.toUpperCase()} ${(first as ts.StringLiteralLike).text}`, fn: last });
      }
    }
    const declared = isDefineEndpoint(node) && node.arguments[0];
    const literal = declared && ts.isObjectLiteralExpression(declared) ? declared : null;
    if (declared && !literal) out.push({ key: `${rel} ? ?`, fn: node }); // not an object: unreadable
    // app.route({ method, url, handler }) and declared endpoints alike.
    const object = literal ?? (ts.isObjectLiteralExpression(node) ? node : null);
    if (object && !(literal === null && isDefineEndpoint(object.parent))) {
      const props = propertiesOf(object);
      const handler = propIn(props, 'handler');
      const fn = handlerOf(handler);
      if (fn || (literal && handler)) {
        const method = textOf(propIn(props, 'method')).toUpperCase();
        const url = textOf(propIn(props, 'url') ?? propIn(props, 'path'));
        // A declaration whose handler cannot be followed is still listed, as unreadable.
        out.push({ key: `${rel} ${method} ${fn ? url : '?'}`, fn: fn ?? object });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Downstream call sites each handler of the files under `dir` can reach, by route key. */
function downstreamCalls(program: ts.Program, dir = routesDir) {
  const checker = program.getTypeChecker();
  const inGateway = (f: string) => f.startsWith(gatewaySrc + path.sep) && f !== clientsFile;
  /** A method of a generated gRPC client, or of the gateway's `Clients` (its stream wrappers). */
  const isClientMethod = (decl: ts.Declaration): boolean => {
    const f = decl.getSourceFile().fileName;
    if (f.includes(`${path.sep}proto${path.sep}gen${path.sep}`)) {
      return ts.isInterfaceDeclaration(decl.parent) && /ServiceClient$/.test(decl.parent.name.text);
    }
    if (f !== clientsFile) return false;
    for (let n: ts.Node | undefined = decl; n; n = n.parent)
      if (ts.isInterfaceDeclaration(n)) return n.name.text === 'Clients';
    return false;
  };
  const symbolOf = (expr: ts.Expression): ts.Symbol | undefined => {
    const at = ts.isPropertyAccessExpression(expr) ? expr.name : expr;
    const s = checker.getSymbolAtLocation(at);
    return s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
  };
  const memo = new Map<ts.Node, Set<ts.CallExpression>>();
  const reach = (fn: ts.Node): Set<ts.CallExpression> => {
    const known = memo.get(fn);
    if (known) return known;
    const found = new Set<ts.CallExpression>();
    memo.set(fn, found); // a recursive helper adds nothing new
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const decls = symbolOf(node.expression)?.declarations ?? [];
        if (decls.some(isClientMethod)) found.add(node);
        else
          for (const d of decls) {
            const body = ts.isVariableDeclaration(d) ? d.initializer : d;
            if (body && isFunctionLike(body) && inGateway(d.getSourceFile().fileName))
              for (const c of reach(body)) found.add(c);
          }
      }
      ts.forEachChild(node, visit);
    };
    visit(fn);
    return found;
  };
  const routes = new Map<string, string[]>();
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(dir + path.sep)) continue;
    for (const h of handlersOf(file, checker, dir)) {
      const calls = [...reach(h.fn)].map((c) => {
        const where = c.getSourceFile();
        const { line } = where.getLineAndCharacterOfPosition(c.getStart());
        const callee = c.expression.getText(where).replace(/\s+/g, '');
        return `${callee} (${path.relative(gatewaySrc, where.fileName)}:${line + 1})`;
      });
      routes.set(h.key, calls);
    }
  }
  return routes;
}

describe('gateway routes', () => {
  const program = loadProgram();
  const routes = downstreamCalls(program);

  it('finds the route handlers and their downstream calls (the reader sees them at all)', () => {
    expect(routes.size).toBeGreaterThan(50);
    expect(routes.get('enterprise-profile/index.ts PUT /api/v1/enterprise/profile')).toEqual([
      expect.stringMatching(/^clients\.keys\.putEnterpriseProfile /),
    ]);
  });

  it('reads every declared endpoint: its method, url and handler (none slips past the rule)', () => {
    expect(routes.get('discount-vouchers/vouchers.ts GET /api/v1/vouchers/:voucher_id')).toHaveLength(1);
    expect([...routes.keys()].filter((key) => key.includes('?'))).toEqual([]);
  });

  it('names a declared endpoint that makes two calls, however its handler, method and url are written', () => {
    const fixture = downstreamCalls(program, fixtureDir);
    expect([...fixture].map(([key, calls]) => [key, calls.length])).toEqual([
      ['two-calls.ts GET /fixture/inline', 2],
      ['two-calls.ts POST /fixture/named', 2],
      ['two-calls.ts PUT /fixture/spread', 2],
    ]);
  });

  it('each route makes at most one downstream gRPC call, the listed exceptions aside', () => {
    const over = [...routes]
      .filter(([key, calls]) => calls.length > 1 && !(key in EXCEPTIONS) && !(key in PENDING))
      .map(([key, calls]) => `${key}: ${calls.length} calls: ${calls.join(', ')}`);
    expect(over).toEqual([]);
  });

  it('every listed route still makes more than one call (the lists only shrink)', () => {
    const stale = [...Object.keys(EXCEPTIONS), ...Object.keys(PENDING)].filter(
      (key) => (routes.get(key)?.length ?? 0) <= 1,
    );
    expect(stale).toEqual([]);
  });
});
