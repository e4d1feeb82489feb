// How a command prints. Data goes to stdout, everything else (status, warnings, errors) to stderr.
// With --json only the JSON of the response's `data` reaches stdout: the human renderers below
// print nothing in JSON mode, so a command cannot break a script's parse by accident.
// chalk is handed in by main.ts only when colour is possible (a terminal, or FORCE_COLOR): a
// piped, scripted run does not pay for importing it.
import { inert, textWidth, truncateToWidth } from './terminal-text.js';
import type { ChalkInstance } from 'chalk';
import { type IO, type Writer } from './io.js';

export type ChalkModule = typeof import('chalk');

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** colour for the cell on a TTY, e.g. (s, c) => c.green(s) */
  style?: (text: string, chalk: ChalkInstance, row: T) => string;
  /** never cut to fit the terminal: ids a person copies into the next command */
  keep?: boolean;
}

export interface Output {
  /** --json (or the profile's default output) is in force */
  readonly json: boolean;
  /** colour on stdout */
  readonly color: boolean;
  /** chalk for stdout, level 0 when colour is off */
  readonly chalk: ChalkInstance;
  /** chalk for stderr */
  readonly chalkErr: ChalkInstance;
  /** The result of a command: its JSON in JSON mode, else whatever `human` prints. */
  result<T>(data: T, human: (data: T) => void): void;
  /** JSON on stdout, whatever the mode (for commands whose only output is JSON) */
  printJson(value: unknown): void;
  /** text from the daemon on stdout as it came, whatever the mode; made inert on a terminal */
  printText(text: string): void;
  /** table on a TTY, plain aligned columns otherwise; nothing in JSON mode */
  table<T>(rows: readonly T[], columns: readonly Column<T>[], options?: { empty?: string }): void;
  /** `Label: value` lines, aligned; nothing in JSON mode */
  fields(pairs: readonly (readonly [string, unknown])[]): void;
  /**
   * a line of data on stdout; nothing in JSON mode. It is printed as given (it may carry the
   * caller's colours): text from the daemon goes through `inert` first.
   */
  line(text?: string): void;
  /** progress and notes, on stderr */
  status(message: string): void;
  /** a done-message on stderr, with a check mark on a TTY */
  success(message: string): void;
  warn(message: string): void;
}

export function colorEnabled(stream: Writer, env: NodeJS.ProcessEnv, flag: boolean): boolean {
  if (!flag) return false;
  if (env.NO_COLOR) return false;
  // As Node and chalk read it: 0 or false turns colour off, any other value on.
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR !== undefined) return true;
  return stream.isTTY && env.TERM !== 'dumb';
}

/** Any chain of styles (`c.bold.green(s)`) returns the text unchanged. */
const plainChalk: ChalkInstance = new Proxy(function () {} as unknown as ChalkInstance, {
  get: (_target, prop) => (prop === 'level' ? 0 : plainChalk),
  apply: (_target, _this, args: unknown[]) => args.join(' '),
});

function chalkFor(enabled: boolean, chalk: ChalkModule | undefined): ChalkInstance {
  if (!enabled || !chalk) return plainChalk;
  const level = Math.max(1, chalk.supportsColor ? chalk.supportsColor.level : 1);
  return new chalk.Chalk({ level: level as 1 | 2 | 3 });
}

/** Whether any stream of this run may be coloured, i.e. whether chalk is worth loading. */
export function colorPossible(io: IO, flag: boolean): boolean {
  return colorEnabled(io.stdout, io.env, flag) || colorEnabled(io.stderr, io.env, flag);
}

/**
 * Columns a text takes on a terminal: colour codes take none, CJK and most emoji take two, a
 * combining mark none (string-width, which Ink measures with too).
 */
export const visibleWidth = textWidth;

/** How a cell value reads as text: absent values as "-", objects as compact JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'string') return inert(value.replace(/\s*\n\s*/g, ' ').replace(/\t/g, ' '));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  return inert(JSON.stringify(value));
}


/**
 * Aligned columns separated by two spaces. On a TTY the header is bold and the widest columns are
 * shrunk (with …) to fit the terminal; otherwise nothing is truncated, so grep and cut still work.
 */
/** Narrowest a column is cut to on a terminal. */
const MIN_COLUMN_WIDTH = 8;

export function renderTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  opts: { chalk: ChalkInstance; tty: boolean; width?: number },
): string {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  const widths = columns.map((c, i) => Math.max(visibleWidth(c.header), ...cells.map((r) => visibleWidth(r[i]))));
  if (opts.tty && opts.width) {
    const gap = 2 * (columns.length - 1);
    let excess = widths.reduce((a, b) => a + b, 0) + gap - opts.width;
    // Columns marked keep are never cut: a shortened id cannot be copied into the next command,
    // so a row that still does not fit wraps rather than lose one.
    const cuttable = columns.flatMap((c, i) => (c.keep ? [] : [i]));
    while (excess > 0 && cuttable.length > 0) {
      const widest = cuttable.reduce((a, b) => (widths[b] > widths[a] ? b : a));
      if (widths[widest] <= MIN_COLUMN_WIDTH) break;
      widths[widest] -= 1;
      excess -= 1;
    }
  }
  const lines: string[] = [];
  const pad = (text: string, w: number, last: boolean) => (last ? text : text + ' '.repeat(Math.max(0, w - visibleWidth(text))));
  lines.push(
    columns
      .map((c, i) => {
        const h = opts.tty ? opts.chalk.bold(c.header.toUpperCase()) : c.header.toUpperCase();
        return pad(h, widths[i], i === columns.length - 1);
      })
      .join('  '),
  );
  cells.forEach((row, r) => {
    lines.push(
      row
        .map((text, i) => {
          const shown = opts.tty ? truncateToWidth(text, widths[i]) : text;
          const styled = opts.tty && columns[i].style ? columns[i].style!(shown, opts.chalk, rows[r]) : shown;
          return pad(styled, widths[i], i === columns.length - 1);
        })
        .join('  '),
    );
  });
  return `${lines.map((l) => l.trimEnd()).join('\n')}\n`;
}

export function createOutput(io: IO, options: { json: boolean; color: boolean; chalk?: ChalkModule }): Output {
  const color = colorEnabled(io.stdout, io.env, options.color) && Boolean(options.chalk);
  const chalk = chalkFor(color, options.chalk);
  const chalkErr = chalkFor(colorEnabled(io.stderr, io.env, options.color), options.chalk);
  const json = options.json;
  const out = (text: string) => io.stdout.write(text);
  return {
    json,
    color,
    chalk,
    chalkErr,
    result(data, human) {
      if (json) out(`${JSON.stringify(data ?? null, null, 2)}\n`);
      else human(data);
    },
    printJson(value) {
      out(`${JSON.stringify(value ?? null, null, 2)}\n`);
    },
    printText(text) {
      out(io.stdout.isTTY ? inert(text) : text);
    },
    table(rows, columns, opts = {}) {
      if (json) return;
      if (rows.length === 0) {
        io.stderr.write(`${opts.empty ?? 'Nothing to show.'}\n`);
        return;
      }
      out(renderTable(rows, columns, { chalk, tty: io.stdout.isTTY, width: io.stdout.columns }));
    },
    fields(pairs) {
      if (json) return;
      const width = Math.max(0, ...pairs.map(([k]) => k.length + 1));
      for (const [k, v] of pairs) {
        const label = `${k}:`.padEnd(width);
        out(`${io.stdout.isTTY ? chalk.bold(label) : label}  ${cellText(v)}\n`);
      }
    },
    line(text = '') {
      if (!json) out(`${text}\n`);
    },
    // Notes often quote what the daemon sent (a reason, a name): shown inert, like table cells.
    status(message) {
      io.stderr.write(`${inert(message)}\n`);
    },
    success(message) {
      io.stderr.write(`${io.stderr.isTTY ? `${chalkErr.green('✓')} ` : ''}${inert(message)}\n`);
    },
    warn(message) {
      io.stderr.write(`${chalkErr.yellow('warning:')} ${inert(message)}\n`);
    },
  };
}
