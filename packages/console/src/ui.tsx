// The console's few building blocks, on native elements (the most accessible components
// there are): a page with its heading focused on arrival, an error that names the API's
// message and request id, a pager for every list, a confirmation <dialog> before every
// destructive action, and a hook that loads data for a page.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';

export function Page(props: { title: string; intro?: string; children: ComponentChildren }) {
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Hallmark console`;
    h1.current?.focus();
  }, [props.title]);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1} ref={h1}>
        {props.title}
      </h1>
      {props.intro && <p class="intro">{props.intro}</p>}
      {props.children}
    </section>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = describeError(error);
  return (
    <div class="error" role="alert">
      <strong>{e.message}</strong>
      {(e.code || e.requestId) && (
        <small>
          {e.code && (
            <>
              code <code>{e.code}</code>
            </>
          )}
          {e.code && e.requestId && ' · '}
          {e.requestId && (
            <>
              request id <code class="request-id">{e.requestId}</code>
            </>
          )}
        </small>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` now and again whenever `deps` change or `reload()` is called. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: () => setTick((t) => t + 1),
  };
}

/** Runs an action, keeping its error (shown beside it) and whether it is running. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(f: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await f();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

export function Pager(props: {
  label: string;
  page: number;
  totalPages: number;
  onPage: (p: number) => void;
}) {
  const { page, totalPages } = props;
  if (totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {page} of {totalPages}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => props.onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** One page of a list the API answers whole (API keys, enterprise webhooks). */
export function pageOf<T>(items: T[], page: number, size = 20): { items: T[]; totalPages: number } {
  return {
    items: items.slice((page - 1) * size, page * size),
    totalPages: Math.max(1, Math.ceil(items.length / size)),
  };
}

/** A button that asks before it acts: a modal <dialog> naming what will happen. */
export function ConfirmButton(props: {
  label: string;
  title: string;
  body: string;
  confirmLabel?: string;
  danger?: boolean;
  disabled?: boolean;
  onConfirm: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useRef(`confirm-${Math.random().toString(36).slice(2)}`).current;
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : undefined}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-t`} aria-describedby={`${id}-b`}>
        <form method="dialog">
          <h2 id={`${id}-t`}>{props.title}</h2>
          <p id={`${id}-b`}>{props.body}</p>
          <div class="actions">
            <button value="cancel" autofocus>
              Cancel
            </button>
            <button
              value="confirm"
              class={props.danger ? 'danger' : 'primary'}
              onClick={() => setTimeout(props.onConfirm, 0)}
            >
              {props.confirmLabel ?? props.label}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function Status({ value }: { value: string }) {
  return <span class={`status status-${value.replace(/[^a-z_]/gi, '')}`}>{value}</span>;
}
