// Text helpers for the screens: times in the user's zone, sizes, and cells cut to a width.
// Widths are terminal columns, not string lengths (see terminal-text.ts).
import { charactersOf, inert, padEndToWidth, textWidth, truncateToWidth } from '../terminal-text.js';

export { textWidth };

const pad2 = (n: number) => String(n).padStart(2, '0');

/** `2026-11-23 03:00` in `timeZone` (default: this machine's zone); `-` for nothing. */
export function formatTime(value: string | Date | null | undefined, timeZone?: string): string {
  if (value === null || value === undefined || value === '') return '-';
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return '-';
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

/** `Mon 2026-11-23 03:00 CET`: a run slot as read in `timeZone`. */
export function formatSlot(date: Date, timeZone?: string): string {
  const weekday = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' }).format(date);
  const zone =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'short' }).formatToParts(date).find((p) => p.type === 'timeZoneName')
      ?.value ?? '';
  return `${weekday} ${formatTime(date, timeZone)} ${zone}`.trim();
}

/** `HH:MM:SS`, local: when a list was last refreshed. */
export function formatClock(date: Date): string {
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
}

/** The zone this machine runs in, for the defaults of a new schedule. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** `text` on one line, inert: newlines and tabs read as spaces, so nothing after a line break is lost. */
export function oneLine(text: string): string {
  return inert(text.trim().replace(/\s*\n\s*/g, ' ').replace(/\t/g, ' '));
}

/** One line of `text`, at most `width` columns, with an ellipsis when it is cut short (and inert). */
export function truncate(text: string, width: number): string {
  return truncateToWidth(oneLine(text), width);
}

/** A line of indented text (pretty-printed JSON) cut to `width` columns, its indentation kept. */
export function truncateIndented(line: string, width: number): string {
  const indent = /^ */.exec(line)![0].slice(0, Math.max(0, width - 1));
  return indent + truncate(line.slice(indent.length), width - indent.length);
}

/** A cell of exactly `width` columns. */
export function cell(text: string, width: number): string {
  return padEndToWidth(truncate(text, width), width);
}

/** The first 8 characters of an id: enough to tell rows apart on screen. */
export function shortId(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : '-';
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `text` broken into lines of at most `width` columns, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(8, width);
  for (const raw of inert(text).split('\n')) {
    let line = '';
    let lineWidth = 0;
    let lastSpace = -1;
    for (const { segment, width: sw } of charactersOf(raw.replace(/\t/g, '  '))) {
      if (lineWidth + sw > w && line !== '') {
        if (segment === ' ') {
          out.push(line.trimEnd());
          line = '';
          lineWidth = 0;
          lastSpace = -1;
          continue;
        }
        if (lastSpace > 0) {
          out.push(line.slice(0, lastSpace).trimEnd());
          line = line.slice(lastSpace + 1);
        } else {
          out.push(line);
          line = '';
        }
        lineWidth = textWidth(line);
        lastSpace = line.lastIndexOf(' ');
      }
      if (segment === ' ') lastSpace = line.length;
      line += segment;
      lineWidth += sw;
    }
    out.push(line);
  }
  return out;
}
