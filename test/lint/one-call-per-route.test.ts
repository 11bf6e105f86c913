// One gRPC call per route (a house rule): a gateway route authenticates,
// maps HTTP to one downstream call and the answer back. Coordinating services (ask one, then
// another) belongs in the service that owns the resource, behind one RPC, where it can fail
// closed and be tested with the data. This test reads the gateway's route files with the
// TypeScript checker and names every route handler that can reach more than one call site of
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
  return ts.createProgram(files, parsed.options);
}

const isFunctionLike = (n: ts.Node): n is ts.FunctionLikeDeclaration =>
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n) ||
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n);

/** The route handlers of one file: `app.<method>(path, [options,] handler)` and `{ handler }`. */
function handlersOf(file: ts.SourceFile): RouteHandler[] {
  const rel = path.relative(routesDir, file.fileName);
  const out: RouteHandler[] = [];
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
    // app.route({ method, url, handler }) and declared endpoints alike.
    if (ts.isObjectLiteralExpression(node)) {
      const prop = (name: string) =>
        node.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name);
      const handler = prop('handler');
      const fn =
        handler && ts.isPropertyAssignment(handler)
          ? handler.initializer
          : handler && isFunctionLike(handler)
            ? handler
            : null;
      if (fn && isFunctionLike(fn)) {
        const text = (p: ts.ObjectLiteralElementLike | undefined) =>
          p && ts.isPropertyAssignment(p) && ts.isStringLiteralLike(p.initializer) ? p.initializer.text : '?';
        out.push({
          key: `${rel} ${text(prop('method')).toUpperCase()} ${text(prop('url') ?? prop('path'))}`,
          fn,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Downstream call sites each handler can reach. */
function downstreamCalls(program: ts.Program) {
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
    if (!file.fileName.startsWith(routesDir + path.sep)) continue;
    for (const h of handlersOf(file)) {
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
  const routes = downstreamCalls(loadProgram());

  it('finds the route handlers and their downstream calls (the reader sees them at all)', () => {
    expect(routes.size).toBeGreaterThan(50);
    expect(routes.get('enterprise-profile/index.ts PUT /api/v1/enterprise/profile')).toEqual([
      expect.stringMatching(/^clients\.keys\.putEnterpriseProfile /),
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
