// Small hooks the screens share: state that key handlers read fresh, polling with retry, list
// cursors, confirmations and the keys every screen answers (esc, q, ?).
import { type Key } from 'ink';
import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import { KeysContext, usePlace } from './context.js';
import { describeError, type ScreenError } from './errors.js';

type SetState<T> = (next: T | ((prev: T) => T)) => void;

/**
 * useState whose latest value a key handler can read at once: keys typed faster than a render
 * (or pasted) arrive before React re-renders, and would otherwise all see the same old state.
 */
export function useRefState<T>(initial: T | (() => T)): [T, SetState<T>, () => T] {
  const [state, setState] = useState(initial);
  const ref = useRef(state);
  const set = useCallback<SetState<T>>((next) => {
    ref.current = typeof next === 'function' ? (next as (prev: T) => T)(ref.current) : next;
    setState(ref.current);
  }, []);
  const get = useCallback(() => ref.current, []);
  return [state, set, get];
}

export interface Polled<T> {
  data: T | undefined;
  error: ScreenError | null;
  loading: boolean;
  updatedAt: Date | null;
  reload(): void;
}

/** How soon a request that found no daemon is tried again. */
export const RECONNECT_MS = 2000;

/**
 * Loads now and every `intervalMs` (0: once) while `active`; a lost connection is retried
 * every RECONNECT_MS at most. Data already shown stays on screen while a reload fails.
 */
export function usePolling<T>(
  load: () => Promise<T>,
  options: {
    intervalMs: number;
    active: boolean;
    key?: string;
    /** the wait after a load that brought `data`, when it depends on it (default intervalMs) */
    intervalFor?: (data: T) => number;
  },
): Polled<T> {
  const [state, setState] = useState<Omit<Polled<T>, 'reload'>>({ data: undefined, error: null, loading: true, updatedAt: null });
  const loadRef = useRef(load);
  loadRef.current = load;
  const intervalForRef = useRef(options.intervalFor);
  intervalForRef.current = options.intervalFor;
  const [nonce, setNonce] = useState(0);
  const { intervalMs, active, key } = options;

  useEffect(() => {
    if (!active) return;
    let cancelled = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      let delay = intervalMs;
      try {
        const data = await loadRef.current();
        if (cancelled) return;
        if (intervalMs > 0 && intervalForRef.current) delay = intervalForRef.current(data);
        setState({ data, error: null, loading: false, updatedAt: new Date() });
      } catch (err) {
        if (cancelled) return;
        const error = describeError(err);
        if (error.connection) delay = intervalMs > 0 ? Math.min(intervalMs, RECONNECT_MS) : RECONNECT_MS;
        setState((s) => ({ ...s, error, loading: false }));
      }
      if (!cancelled && delay > 0) timer = setTimeout(() => void tick(), delay);
    };
    void tick();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [active, intervalMs, key, nonce]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * The selected row of a list of `count` rows, moved by arrows, j/k, page keys, g/G. Key handlers
 * read it through `current()`, which is right even before the move has been drawn. With `keys`
 * (the rows' ids), the cursor stays on its row when a refresh adds or removes rows above it, so a
 * key pressed next acts on the row the user picked, not on whatever moved into its place.
 */
export function useListCursor(
  count: number,
  pageSize = 10,
  keys?: readonly string[],
): [number, (input: string, key: Key) => boolean, (i: number) => void, () => number] {
  const [index, setIndex, getIndex] = useRefState(0);
  const countRef = useRef(count);
  countRef.current = count;
  const clamp = (i: number) => Math.max(0, Math.min(i, countRef.current - 1));
  const selectedKey = useRef<string | undefined>(undefined);
  if (keys) {
    const at = clamp(getIndex());
    const moved = selectedKey.current === undefined || keys[at] === selectedKey.current ? -1 : keys.indexOf(selectedKey.current);
    if (moved >= 0) setIndex(moved);
    else selectedKey.current = keys[at];
  }
  const keysRef = useRef(keys);
  keysRef.current = keys;
  const select = (i: number) => {
    setIndex(i);
    selectedKey.current = keysRef.current?.[i];
  };
  const onKey = useCallback(
    (input: string, key: Key): boolean => {
      const i = clamp(getIndex());
      let next: number | undefined;
      if (key.upArrow || input === 'k') next = i - 1;
      else if (key.downArrow || input === 'j') next = i + 1;
      else if (key.pageUp) next = i - pageSize;
      else if (key.pageDown) next = i + pageSize;
      else if (key.home || input === 'g') next = 0;
      else if (key.end || input === 'G') next = countRef.current - 1;
      if (next === undefined) return false;
      select(clamp(next));
      return true;
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [pageSize],
  );
  return [clamp(index), onKey, (i) => select(clamp(i)), () => clamp(getIndex())];
}

export interface Confirmation {
  text: string;
  onYes: () => void;
}

/** A yes/no question on the message line; y answers yes, any other key no. */
export function useConfirm() {
  const [pending, setPending, getPending] = useRefState<Confirmation | null>(null);
  const ask = useCallback((text: string, onYes: () => void) => setPending({ text, onYes }), [setPending]);
  /** Call first in a key handler: true when the key answered the question. */
  const onKey = useCallback(
    (input: string): boolean => {
      const p = getPending();
      if (!p) return false;
      setPending(null);
      if (input === 'y' || input === 'Y') p.onYes();
      return true;
    },
    [getPending, setPending],
  );
  return { pending, ask, onKey };
}

/**
 * The keys of one screen. `handler` sees every key first and returns true for the ones it used;
 * then esc goes back, and (unless a text field has focus, where letters are typed) q quits and
 * ? opens the help. Only the screen on top gets keys.
 */
export function useScreenKeys(
  handler: (input: string, key: Key) => boolean | void,
  options: { typing?: boolean | (() => boolean) } = {},
): void {
  const registry = useContext(KeysContext);
  const { entry } = usePlace();
  const owner = useRef({}).current;
  registry.set(entry, { owner, handler, typing: options.typing ?? false });
  useEffect(
    () => () => {
      if (registry.get(entry)?.owner === owner) registry.delete(entry);
    },
    [registry, entry, owner],
  );
}

/** Runs one request at a time for a screen's actions, reporting how it went on the message line. */
export function useAction() {
  const [busy, setBusy, getBusy] = useRefState<string | null>(null);
  const run = useCallback(
    async <T>(label: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: ScreenError }> => {
      if (getBusy()) return { ok: false, error: { text: `still ${getBusy()}`, connection: false } };
      setBusy(label);
      try {
        return { ok: true, value: await fn() };
      } catch (err) {
        return { ok: false, error: describeError(err) };
      } finally {
        setBusy(null);
      }
    },
    [getBusy, setBusy],
  );
  return { busy, run };
}

/** Terminal size, following resizes. */
export function useTerminalSize(stdout: NodeJS.WriteStream, fixed?: { columns: number; rows: number }) {
  const read = () => ({ columns: fixed?.columns ?? stdout.columns ?? 80, rows: fixed?.rows ?? stdout.rows ?? 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, fixed?.columns, fixed?.rows]);
  return fixed ?? size;
}
