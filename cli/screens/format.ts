// Text helpers for the screens: times in the user's zone, sizes, and cells cut to a width.

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

/** One line of `text`, with an ellipsis when it is cut short. */
export function truncate(text: string, width: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  if (width <= 0) return '';
  if (flat.length <= width) return flat;
  return width === 1 ? '…' : `${flat.slice(0, width - 1)}…`;
}

/** A cell of exactly `width` characters. */
export function cell(text: string, width: number): string {
  return truncate(text, width).padEnd(width);
}

/** The first 8 characters of an id: enough to tell rows apart on screen. */
export function shortId(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : '-';
}

export function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `text` broken into lines of at most `width` characters, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(8, width);
  for (const raw of text.split('\n')) {
    let line = raw.replace(/\t/g, '  ');
    while (line.length > w) {
      let cut = line.lastIndexOf(' ', w);
      if (cut <= 0) cut = w;
      out.push(line.slice(0, cut).trimEnd());
      line = line.slice(cut).replace(/^ /, '');
    }
    out.push(line);
  }
  return out;
}
