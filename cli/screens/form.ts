// A form: fields in focus order, moved through with tab (or enter and the arrows), each field's
// keys handled by its kind. One key handler for the whole form, reading state through refs, so
// fast typing and pasting land in the right field in the right order.
import { type Key } from 'ink';
import { useCallback, useRef } from 'react';
import { useRefState, useScreenKeys } from './hooks.js';
import { applyKey, editState, type EditState } from './text-edit.js';

export type FieldSpec =
  | {
      id: string;
      kind: 'text';
      label: string;
      multiline?: boolean;
      /** visible lines of a multi-line field (default 3) */
      rows?: number;
      /** draws • for each character: the value is never on screen */
      mask?: boolean;
      placeholder?: string;
      /** Enter in a single-line field; default: next field */
      onEnter?: () => void;
    }
  /** `compact`: only the chosen option is drawn (‹ github ›), for lists too long for one line */
  | { id: string; kind: 'choice'; label: string; options: readonly string[]; compact?: boolean }
  | { id: string; kind: 'button'; label: string; onPress: () => void }
  /** a part of the screen that takes keys when focused (a result list, a transcript) */
  | { id: string; kind: 'view'; label: string; onKey: (input: string, key: Key) => boolean };

export interface FormOptions {
  /** the fields shown now, in focus order */
  fields: readonly FieldSpec[];
  initial: Record<string, string>;
  initialFocus?: string;
  /** ctrl+s */
  onSubmit?: () => void;
  /** the screen's own keys, tried before the focused field's */
  shortcuts?: (input: string, key: Key) => boolean;
}

export interface Form {
  values: Record<string, string>;
  edits: Record<string, EditState>;
  focus: string;
  focusField(id: string): void;
  setValue(id: string, value: string): void;
  /** the latest values, for callbacks that run between renders */
  current(): Record<string, string>;
}

/** A key that puts text in the field (not a move, a deletion or a shortcut). */
const typesText = (input: string, key: Key) =>
  input !== '' && !key.ctrl && !key.meta && !key.return && !key.tab && !key.backspace && !key.delete && !key.upArrow && !key.downArrow && !key.leftArrow && !key.rightArrow && !key.escape;

export function useForm(options: FormOptions): Form {
  const initialEdits = () => Object.fromEntries(Object.entries(options.initial).map(([k, v]) => [k, editState(v)]));
  const [edits, setEdits, getEdits] = useRefState<Record<string, EditState>>(initialEdits);
  const [focus, setFocus, getFocus] = useRefState<string>(options.initialFocus ?? options.fields[0]?.id ?? '');
  const opts = useRef(options);
  opts.current = options;

  const focusedField = (): FieldSpec | undefined => {
    const fields = opts.current.fields;
    return fields.find((f) => f.id === getFocus()) ?? fields[0];
  };
  const move = (delta: number, wrap: boolean) => {
    const fields = opts.current.fields;
    if (fields.length === 0) return;
    const i = Math.max(0, fields.findIndex((f) => f.id === focusedField()?.id));
    let next = i + delta;
    next = wrap ? (next + fields.length) % fields.length : Math.max(0, Math.min(next, fields.length - 1));
    setFocus(fields[next].id);
  };
  const setEdit = (id: string, state: EditState) => setEdits((all) => ({ ...all, [id]: state }));
  // A field that opens with a default (a zone, `generic`, `{}`, `main`) is replaced by what is typed
  // into it first, as a selected field in a browser is: typing `Europe/Berlin` over `UTC` gave
  // `UTCEurope/Berlin`. Any other key first (an arrow, backspace) edits the default instead.
  const untouched = useRef(new Set(Object.entries(options.initial).flatMap(([k, v]) => (v === '' ? [] : [k]))));

  const handler = (input: string, key: Key): boolean => {
    if (opts.current.shortcuts?.(input, key)) return true;
    if (key.tab) {
      move(key.shift ? -1 : 1, true);
      return true;
    }
    if (key.ctrl && input === 's' && opts.current.onSubmit) {
      opts.current.onSubmit();
      return true;
    }
    const f = focusedField();
    if (!f) return false;
    switch (f.kind) {
      case 'text': {
        let before = getEdits()[f.id] ?? editState('');
        if (untouched.current.delete(f.id) && typesText(input, key) && before.value === opts.current.initial[f.id]) before = editState('');
        const r = applyKey(before, input, key, { multiline: f.multiline });
        if (r.state !== before) setEdit(f.id, r.state);
        if (r.action === 'enter') {
          if (f.onEnter) f.onEnter();
          else move(1, false);
        } else if (r.action === 'up') move(-1, false);
        else if (r.action === 'down') move(1, false);
        return r.handled || r.action !== null;
      }
      case 'choice': {
        const current = getEdits()[f.id]?.value ?? f.options[0];
        const i = Math.max(0, f.options.indexOf(current));
        const pick = (j: number) => setEdit(f.id, editState(f.options[(j + f.options.length) % f.options.length]));
        if (key.leftArrow || input === 'h') pick(i - 1);
        else if (key.rightArrow || input === 'l' || input === ' ') pick(i + 1);
        else if (key.upArrow || input === 'k') move(-1, false);
        else if (key.downArrow || input === 'j' || key.return) move(1, false);
        else return false;
        return true;
      }
      case 'button':
        if (key.return || input === ' ') f.onPress();
        else if (key.leftArrow || key.upArrow || input === 'h' || input === 'k') move(-1, false);
        else if (key.rightArrow || key.downArrow || input === 'l' || input === 'j') move(1, false);
        else return false;
        return true;
      case 'view':
        return f.onKey(input, key);
    }
  };

  useScreenKeys(handler, { typing: () => focusedField()?.kind === 'text' });

  const values = Object.fromEntries(Object.entries(edits).map(([k, v]) => [k, v.value]));
  const current = useCallback(() => Object.fromEntries(Object.entries(getEdits()).map(([k, v]) => [k, v.value])), [getEdits]);
  const shownFocus = options.fields.some((f) => f.id === focus) ? focus : (options.fields[0]?.id ?? '');
  return {
    values,
    edits,
    focus: shownFocus,
    focusField: setFocus,
    setValue: (id, value) => setEdit(id, editState(value)),
    current,
  };
}
