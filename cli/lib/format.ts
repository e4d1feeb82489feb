// How values read in human output. On a terminal times are relative ("5 minutes ago"), as gh
// shows them; elsewhere they stay ISO 8601, so scripts reading plain text can parse them.

const UNITS: readonly [string, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "just now", "5 minutes ago", "in 2 hours". */
export function relativeTime(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const diff = t - nowMs;
  const abs = Math.abs(diff);
  for (const [unit, ms] of UNITS) {
    if (abs >= ms) {
      const n = Math.floor(abs / ms);
      const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
      return diff < 0 ? `${text} ago` : `in ${text}`;
    }
  }
  return 'just now';
}

/** A timestamp for a table cell or a field: relative on a TTY, the ISO text otherwise. */
export function formatTime(iso: string | null | undefined, tty: boolean, nowMs = Date.now()): string | null {
  if (!iso) return null;
  return tty ? relativeTime(iso, nowMs) : iso;
}

/** 812 B, 2.1 KB, 3.4 MB (powers of 1024, as file sizes usually are shown). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One line of at most `width` characters, ending with … when cut. */
export function ellipsize(text: string, width: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  const chars = Array.from(line);
  if (chars.length <= width) return line;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

export const yesNo = (value: boolean) => (value ? 'yes' : 'no');

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
