// The console's shell: sign-in (OIDC, auth.ts), the live/test switch shown on every page, the
// navigation, and the pages, each its own chunk loaded the first time it is opened. Routes
// are paths under /console/ (the gateway answers index.html for each).
import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  completeSignIn,
  currentSession,
  settings,
  signIn,
  signOut,
  CALLBACK_PATH,
  type Session,
} from './auth';
import { storedMode, storeMode, whenSignedOut, type Mode, type PageProps } from './api';
import { ErrorNote } from './ui';

type Loader = () => Promise<{ default: ComponentType<PageProps> }>;

export const ROUTES: { path: string; label: string; load: Loader }[] = [
  { path: '', label: 'Overview', load: () => import('./pages/overview') },
  { path: 'bulk', label: 'Bulk', load: () => import('./pages/bulk') },
  { path: 'certificates', label: 'Certificates', load: () => import('./pages/certificates') },
  { path: 'gifts', label: 'Gifts', load: () => import('./pages/gifts') },
  { path: 'vouchers', label: 'Vouchers', load: () => import('./pages/vouchers') },
  { path: 'keys', label: 'API keys', load: () => import('./pages/keys') },
  { path: 'webhooks', label: 'Webhooks', load: () => import('./pages/webhooks') },
  { path: 'profile', label: 'Issuer profile', load: () => import('./pages/profile') },
  { path: 'shop', label: 'Shop', load: () => import('./pages/shop') },
];

const routeOf = (pathname: string) => pathname.replace(/^\/console\/?/, '').split('/')[0] ?? '';

function ModeSwitch({ mode, onChange }: { mode: Mode; onChange: (m: Mode) => void }) {
  return (
    <div class={`mode mode-${mode}`} role="group" aria-label="Data mode">
      <span class="mode-label">{mode === 'test' ? 'Test mode: test data only' : 'Live mode'}</span>
      <label>
        <input
          type="checkbox"
          role="switch"
          checked={mode === 'test'}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked ? 'test' : 'live')}
        />{' '}
        Test mode
      </label>
    </div>
  );
}

function SignIn({ error }: { error?: unknown }) {
  const s = settings();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(error);
  return (
    <main id="main" class="signin">
      <h1>Hallmark console</h1>
      <p>Run launches, answer customers and watch your integration: every action here is an API call.</p>
      {s ? (
        <button
          type="button"
          class="primary"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            const back =
              location.pathname === CALLBACK_PATH ? '/console/' : location.pathname + location.search;
            signIn(s, back).catch((err: unknown) => {
              setBusy(false);
              setFailure(err);
            });
          }}
        >
          Sign in
        </button>
      ) : (
        <p class="error" role="alert">
          Sign-in is not configured on this server: set HALLMARK_CONSOLE_OIDC_ISSUER (and HALLMARK_JWKS_URL to
          the same provider's keys).
        </p>
      )}
      <ErrorNote error={failure} />
    </main>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const [path, setPath] = useState(location.pathname);
  const [mode, setMode] = useState<Mode>(storedMode());
  const [Page, setPage] = useState<{ C: ComponentType<PageProps> } | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const route = ROUTES.find((r) => r.path === routeOf(path)) ?? ROUTES[0]!;
  const navigate = (to: string) => {
    history.pushState(null, '', to);
    setPath(to.split('?')[0]!);
  };
  useEffect(() => {
    const pop = () => setPath(location.pathname);
    addEventListener('popstate', pop);
    return () => removeEventListener('popstate', pop);
  }, []);
  useEffect(() => {
    setPage(null);
    route.load().then(
      (m) => setPage({ C: m.default }),
      (err: unknown) => setFailure(err),
    );
  }, [route.path]);
  const switchMode = (m: Mode) => {
    storeMode(m);
    setMode(m);
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class={`top top-${mode}`}>
        <span class="brand">Hallmark</span>
        <ModeSwitch mode={mode} onChange={switchMode} />
        <span class="who">
          {session.email} <small>({session.role})</small>
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav aria-label="Console">
          <ul>
            {ROUTES.map((r) => (
              <li key={r.path}>
                <a
                  href={`/console/${r.path}`}
                  aria-current={r === route ? 'page' : undefined}
                  onClick={(e) => {
                    if (e.ctrlKey || e.metaKey || e.shiftKey) return;
                    e.preventDefault();
                    navigate(`/console/${r.path}`);
                  }}
                >
                  {r.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" data-mode={mode}>
          <ErrorNote error={failure} />
          {Page ? <Page.C key={mode} mode={mode} session={session} navigate={navigate} /> : <p>Loading…</p>}
        </main>
      </div>
    </>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(currentSession());
  const [error, setError] = useState<unknown>(null);
  const [finishing, setFinishing] = useState(location.pathname === CALLBACK_PATH);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    const s = settings();
    if (!finishing || !s) return;
    completeSignIn(s).then(
      (back) => {
        history.replaceState(null, '', back);
        setSession(currentSession());
        setFinishing(false);
      },
      (err: unknown) => {
        history.replaceState(null, '', '/console/');
        setError(err);
        setFinishing(false);
      },
    );
  }, []);
  if (finishing)
    return (
      <main id="main">
        <p role="status">Signing you in…</p>
      </main>
    );
  if (!session) return <SignIn error={error} />;
  return (
    <Shell
      session={session}
      onSignOut={() => {
        signOut();
        setSession(null);
      }}
    />
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the "Loading…" line the page shows until this script runs
render(<App />, root);
