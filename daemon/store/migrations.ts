// Schema versions of the stored data. A snapshot records the version its tables (and the journal
// written after it) are in; on open, older data is carried forward one version at a time and a new
// snapshot is written at once, so a journal never mixes versions.

import { newId } from './new-id.js';
import { matchKey, typeKey } from '../automations/ids.js';
import { eventOfCopy } from '../dispatch/normalise.js';
import { parseEventKey } from '../sessions/keys.js';
import { automationNameKey } from '../../shared/automation-names.js';

export type RawTables = Record<string, Record<string, unknown>[]>;
export type Migration = (tables: RawTables) => RawTables;

/** Makes every automation's name key again, with the fold of this release. */
const refoldNameKeys: Migration = (tables) => ({
  ...tables,
  automations: (tables.automations ?? []).map((a) => ({ ...a, name_key: automationNameKey(a.name as string) })),
});

/**
 * MIGRATIONS[n - 1] takes the tables from version n to version n + 1. Append only; never edit a
 * released step. Journal lines written under the old version are replayed before migrating, into
 * the current tables, so a step that renames a table or its key field must also read the old name.
 */
export const MIGRATIONS: readonly Migration[] = [
  // 1 -> 2: what a session costs the store shrank. The idempotency key is found through the
  // sessions' own index, so the `dispatches` table goes; a session's prompt is its first message
  // (see sessions/view.ts), so the stored copy goes; an event's dispatched items lose the key,
  // which is derived from the automation and event ids.
  (tables) => {
    const sessions = tables.sessions ?? [];
    const prompts = new Map(sessions.map((s) => [s.session_id as string, s.prompt]));
    const seen = new Set<string>();
    const messages = (tables.messages ?? []).filter((m) => {
      const sessionId = m.session_id as string;
      if (seen.has(sessionId)) return true;
      seen.add(sessionId);
      return !(m.role === 'user' && prompts.get(sessionId) === m.content);
    });
    const events = (tables.events ?? []).map((e) => ({
      ...e,
      dispatched: ((e.dispatched ?? []) as Record<string, unknown>[]).map((d) => ({ automationId: d.automationId, triggerIds: d.triggerIds })),
    }));
    const { dispatches: _dropped, ...rest } = tables;
    return { ...rest, sessions: sessions.map((s) => ({ event_row_id: null, ...s })), messages, events };
  },
  // 2 -> 3: automation names compare with Unicode case folding ("Straße" = "STRASSE"), not only
  // lower case. Names that now collide both stay; the next rename or create meets the check.
  refoldNameKeys,
  // 3 -> 4: the fold also takes the capital sharp s ("STRAẞE" = "STRASSE"); keys are made again.
  refoldNameKeys,
  // 4 -> 5: event triggers are found by their event type in lower case too, so a reason can
  // point at a case mix-up; their type keys are made again.
  (tables) => ({
    ...tables,
    triggers: (tables.triggers ?? []).map((t) =>
      t.kind === 'event' && typeof t.event_type === 'string' ? { ...t, type_key: typeKey(t.team_id as string, t.event_type) } : t,
    ),
  }),
  // 5 -> 6: a session the runner answered at once keeps that answer on its row (`answer`) rather
  // than in a message row; older rows keep their message rows. A session an event started stores
  // no idempotency key: it is derived from the receipt the session refers to, and found through
  // the receipts of its event id (sessions/keys.ts), so those keys go.
  (tables) => keyEventSessionsByReceipt(tables),
  // 6 -> 7: a provider's own `|` is escaped in the trigger index's key, where provider `a` with
  // type `b|c` and provider `a|b` with type `c` shared one; match keys are made again.
  (tables) => ({
    ...tables,
    triggers: (tables.triggers ?? []).map((t) =>
      t.kind === 'event' && typeof t.provider === 'string' && typeof t.event_type === 'string'
        ? { ...t, match_key: matchKey(t.team_id as string, t.provider, t.event_type) }
        : t,
    ),
  }),
  // 7 -> 8: a snapshot may write the sessions of a pack as one entry (packed-rows.ts, PackEntry); the
  // reader expands them, so the tables a migration step sees are rows as before. Nothing to change.
  (tables) => tables,
  // 8 -> 9: a snapshot may write the events of a pack (the receipts of a batch) as one entry too,
  // which a reader of version 8 would take for a row. Nothing to change in the rows.
  (tables) => tables,
  // 9 -> 10: the store itself keeps an event id from starting two sessions of one automation: a
  // session an event started holds the event's id (`event_id`), unique together with its
  // automation, rather than the key being derived from its receipt.
  (tables) => withEventIds(tables),
  // 10 -> 11: sessions name the daemon that holds them (`claimed_by`) and count their turns in
  // flight, and live daemons have `instances` rows (sessions/recovery.ts). Rows written before
  // hold neither, which a start reads as today: their live sessions are the previous process's.
  // Nothing to change; the version tells an older svc, which would drop the new fields, to refuse.
  (tables) => tables,
  // 11 -> 12: turns of a session in flight on a daemon other than its claimant (`session_turns`).
  // None before; the version tells an older svc, which knows no such table, to refuse.
  (tables) => tables,
  // 12 -> 13: connections and their deliveries (`connections`, `deliveries`), and receipts that
  // count their replays (`replays`, absent until the first). No rows before, nothing to change; the
  // version tells an older svc, which knows neither table and would drop both, to refuse.
  (tables) => tables,
];

/**
 * Gives each session an event started the event id of the receipt it refers to. A session whose
 * receipt retention dropped holds none, as does any later session of an automation and event id
 * that already has one (no release stored two, but the data must load whatever it holds).
 */
function withEventIds(tables: RawTables): RawTables {
  const receipts = new Map((tables.events ?? []).map((e) => [e.id as string, e]));
  const keyed = new Set<string>();
  const sessions = (tables.sessions ?? []).map((s) => {
    const receipt = typeof s.event_row_id === 'string' ? receipts.get(s.event_row_id) : undefined;
    if (!receipt || typeof s.automation_id !== 'string' || receipt.team_id !== s.team_id || typeof receipt.event_id !== 'string') return s;
    const key = JSON.stringify([s.automation_id, receipt.event_id]);
    if (keyed.has(key)) return s;
    keyed.add(key);
    return { ...s, event_id: receipt.event_id };
  });
  return { ...tables, sessions };
}

/**
 * Drops the stored key of every session an event started, once the session refers to a receipt
 * of that event. Sessions from schema 1 refer to none (they kept a copy of their event): they are
 * linked to a receipt of their event id, or to one made from their copy when retention had dropped
 * every receipt of it. A session with neither keeps its key on the row (no release wrote one).
 */
function keyEventSessionsByReceipt(tables: RawTables): RawTables {
  const events = [...(tables.events ?? [])];
  const eventOf = (e: Record<string, unknown>) => `${e.team_id as string} ${e.event_id as string}`;
  /** receipt id -> `${team_id} ${event_id}` */
  const receipts = new Map(events.map((e) => [e.id as string, eventOf(e)]));
  /** `${team_id} ${event_id}` -> the first receipt of the event id in the team */
  const firstReceipt = new Map<string, string>();
  for (const [id, of] of receipts) if (!firstReceipt.has(of)) firstReceipt.set(of, id);
  const sessions = (tables.sessions ?? []).map((s) => {
    const key = typeof s.idempotency_key === 'string' ? parseEventKey(s.idempotency_key) : undefined;
    if (!key || s.automation_id !== key.automationId) return s;
    const k = `${s.team_id as string} ${key.eventId}`;
    if (typeof s.event_row_id === 'string' && receipts.get(s.event_row_id) === k) return { ...s, idempotency_key: null };
    let receiptId = firstReceipt.get(k);
    if (receiptId === undefined) {
      const copy = s.event as Record<string, unknown> | null | undefined;
      if (!copy || copy.id !== key.eventId) return s;
      receiptId = newId();
      events.push(restoredReceipt(receiptId, s, copy));
      firstReceipt.set(k, receiptId);
    }
    return { ...s, event_row_id: receiptId, idempotency_key: null };
  });
  return { ...tables, sessions, events };
}

/** A receipt for a schema 1 session whose event's receipts were all dropped, from its copy of the event. */
function restoredReceipt(id: string, s: Record<string, unknown>, copy: Record<string, unknown>): Record<string, unknown> {
  const { id: eventId, ...event } = eventOfCopy(copy, s.created_at as string);
  return {
    id,
    event_id: eventId,
    team_id: s.team_id,
    ...event,
    accepted: true,
    dispatched: [{ automationId: s.automation_id, triggerIds: typeof s.trigger_id === 'string' ? [s.trigger_id] : [] }],
    reason: 'restored from the copy of the event its session kept: retention had dropped the receipt',
    failures: [],
  };
}

/**
 * Tables an older schema had and a migration removed, with the version that removed them: journal
 * lines of such a version still name them, and are replayed without those mutations.
 */
export const DROPPED_TABLES: ReadonlyMap<string, number> = new Map([['dispatches', 2]]);

export const SCHEMA_VERSION = MIGRATIONS.length + 1;

export class SchemaVersionError extends Error {}

/** Carries `tables` from version `from` to the newest version the given steps know. */
export function migrate(tables: RawTables, from: number, file: string, steps: readonly Migration[] = MIGRATIONS): RawTables {
  const target = steps.length + 1;
  if (!Number.isInteger(from) || from < 1) {
    throw new SchemaVersionError(`${file} has schema_version ${JSON.stringify(from)}, which no svc release wrote`);
  }
  if (from > target) {
    throw new SchemaVersionError(
      `${file} has schema_version ${from} but this svc only knows up to ${target}: it was written by a newer svc. ` +
        'Run that newer version (downgrading the data is not supported); the file is left untouched.',
    );
  }
  let out = tables;
  for (let v = from; v < target; v++) out = steps[v - 1](out);
  return out;
}
