// Instants shown as a person in a time zone reads them: `2026-03-08 03:00 EDT`. Intl alone, so the
// CLI's lists and views show schedule times without loading the cron parser.

/** `2026-03-08 03:00 EDT`: the local date and time in `tz` and the zone's short name. */
export function formatInZone(date: Date, tz: string): string {
  const parts = wallParts(new Intl.DateTimeFormat('en-US', { timeZone: tz, ...NUMERIC_PARTS }), date.getTime());
  const pad = (n: number): string => String(n).padStart(2, '0');
  const day = `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
  return `${day} ${pad(parts.hour)}:${pad(parts.minute)} ${zoneAbbreviation(date, tz)}`;
}

function zoneAbbreviation(date: Date, tz: string): string {
  // en-US knows the American abbreviations (EDT) but writes GMT+2 for Europe; en-GB knows the
  // European ones (CEST, BST). Prefer whichever gives letters.
  let fallback = '';
  for (const locale of ['en-US', 'en-GB']) {
    const name = new Intl.DateTimeFormat(locale, { timeZone: tz, timeZoneName: 'short' })
      .formatToParts(date)
      .find((p) => p.type === 'timeZoneName')?.value;
    if (!name) continue;
    if (/^[A-Z]{2,5}$/.test(name)) return name;
    fallback ||= name;
  }
  return fallback || tz;
}

const NUMERIC_PARTS = {
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
} as const satisfies Intl.DateTimeFormatOptions;

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallParts(format: Intl.DateTimeFormat, t: number): WallParts {
  const out: WallParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of format.formatToParts(t)) {
    if (part.type in out) out[part.type as keyof WallParts] = Number(part.value);
  }
  return out;
}
