// Decides, for each candidate trigger, whether an event matches it (CONTRACT §6) and, when it
// does not, which condition failed first. Pure logic over rows the caller has read; compiled
// filters are cached per stored filter list, which the store replaces (never mutates) on update.
import { compileFilter, EventPaths, type CompiledFilter as Filter } from '../../shared/filters.js';
import type { NormalisedEventDto } from '../../shared/schemas/index.js';
import type { AutomationRow, EventFilter, TriggerRow } from '../store/tables.js';
import { conditionText } from './conditions.js';

export interface Candidate {
  automation: AutomationRow;
  trigger: TriggerRow;
}

/** One trigger against one event. */
export interface TriggerVerdict {
  trigger: TriggerRow;
  /** conditions that held before the first failure: how near the trigger came to matching */
  passed: number;
  /** the first failing condition, or null on a match */
  failed: string | null;
}

/** One automation against one event: matched when any of its triggers matched. */
export interface AutomationVerdict {
  automation: AutomationRow;
  matched: boolean;
  /** the matching triggers, in trigger order (shared between events: never mutated) */
  triggerIds: readonly string[];
  /** null when matched; else the first failing condition of its nearest trigger */
  failed: string | null;
  /** `passed` of its nearest trigger; every condition of a matching trigger counts */
  nearness: number;
}

interface CompiledFilter {
  filter: EventFilter;
  /** absent when the stored filter no longer compiles (it was validated when saved) */
  compiled?: Filter;
  error?: string;
}

/** Conditions before the filters: provider, event type, automation status, trigger enabled, connection. */
const FIXED_CONDITIONS = 5;

const NO_TRIGGERS: readonly string[] = Object.freeze([]);
/** candidates past which evaluate finds an automation's entry through a map rather than a scan */
const SCAN_LIMIT = 16;

interface JudgedAutomation {
  automation: AutomationRow;
  verdicts: TriggerVerdict | TriggerVerdict[];
}

function entryOf(entries: readonly JudgedAutomation[], automationId: string): JudgedAutomation | undefined {
  for (const e of entries) if (e.automation.id === automationId) return e;
  return undefined;
}

/** trigger ids whose one-element list is kept before the memo starts over */
const SINGLE_ID_MEMO_SIZE = 100_000;
const failedVerdict = (trigger: TriggerRow, passed: number, failed: string): TriggerVerdict => ({ trigger, passed, failed });

export class EventMatcher {
  private readonly compiled = new WeakMap<readonly EventFilter[], CompiledFilter[]>();
  /**
   * `[trigger.id]` per trigger id, frozen and shared: the matched trigger ids of an automation
   * with one matching trigger (nearly all). Every receipt keeps its events' lists, so one array
   * per event and automation (with push's spare room) was most of what a matched event left on
   * the heap. By id, not by row: a trigger's row is replaced at every run (its
   * counters), and the list, with the receipt records and lists made from it, would be too.
   */
  private readonly single = new Map<string, readonly string[]>();

  /** `paths`, when given, is the event's: its filters share its node budget and what their paths found. */
  evaluateTrigger(automation: AutomationRow, trigger: TriggerRow, event: NormalisedEventDto, paths?: EventPaths): TriggerVerdict {
    const name = automation.name;
    if (trigger.provider !== event.provider) {
      // Both said at once, or the sender would fix the provider only to meet the next mix-up.
      const failed =
        trigger.event_type === event.event_type
          ? conditionText.provider(name, trigger.provider ?? '', event.provider)
          : conditionText.providerAndEventType(name, { provider: trigger.provider ?? '', type: trigger.event_type ?? '' }, { provider: event.provider, type: event.event_type });
      return failedVerdict(trigger, 0, failed);
    }
    if (trigger.event_type !== event.event_type) return failedVerdict(trigger, 1, conditionText.eventType(name, trigger.event_type ?? '', event.event_type));
    if (automation.status !== 'active') return failedVerdict(trigger, 2, conditionText.automationStatus(name, automation.status));
    if (!trigger.enabled) return failedVerdict(trigger, 3, conditionText.triggerDisabled(name));
    if (trigger.connection_id !== null && trigger.connection_id !== event.connection_id) {
      return failedVerdict(trigger, 4, conditionText.connection(name, trigger.connection_id, event.connection_id));
    }
    const filters = trigger.filters ?? [];
    const compiled = this.compile(filters);
    for (let i = 0; i < compiled.length; i++) {
      const f = compiled[i];
      let ok: boolean;
      try {
        if (!f.compiled) throw new Error(f.error);
        ok = f.compiled.test(event, paths);
      } catch (err) {
        return failedVerdict(trigger, FIXED_CONDITIONS + i, conditionText.filterError(name, f.filter.jsonPath, (err as Error).message));
      }
      if (!ok) return failedVerdict(trigger, FIXED_CONDITIONS + i, conditionText.filter(name, f.compiled!.explain(event, paths)));
    }
    return { trigger, passed: FIXED_CONDITIONS + compiled.length, failed: null };
  }

  /**
   * Groups candidates by automation (first-seen order) and judges each: one verdict per
   * automation, carrying every matching trigger so one event starts one session per automation.
   * Calls judging the same event share `paths`: its filters' work bound and what their paths found.
   */
  evaluate(candidates: readonly Candidate[], event: NormalisedEventDto, paths = new EventPaths(event)): AutomationVerdict[] {
    // Per automation its verdict, or its verdicts once it has several triggers here (rare): no
    // array per automation for the one-trigger case, which is nearly every one. Automations are
    // found again by a scan while they are few (an event's usual handful: a map per event cost
    // more), by a map past that.
    const entries: JudgedAutomation[] = [];
    const byId = candidates.length > SCAN_LIMIT ? new Map<string, JudgedAutomation>() : undefined;
    for (const c of candidates) {
      const verdict = this.evaluateTrigger(c.automation, c.trigger, event, paths);
      const entry = byId ? byId.get(c.automation.id) : entryOf(entries, c.automation.id);
      if (!entry) {
        const added = { automation: c.automation, verdicts: verdict };
        entries.push(added);
        byId?.set(c.automation.id, added);
      } else if (Array.isArray(entry.verdicts)) entry.verdicts.push(verdict);
      else entry.verdicts = [entry.verdicts, verdict];
    }
    const out: AutomationVerdict[] = [];
    for (const { automation, verdicts } of entries) out.push(Array.isArray(verdicts) ? this.verdictOfMany(automation, verdicts) : this.verdictOf(automation, verdicts));
    return out;
  }

  /** An automation judged by one trigger (nearly always): its verdict is the trigger's. */
  private verdictOf(automation: AutomationRow, v: TriggerVerdict): AutomationVerdict {
    return v.failed === null
      ? { automation, matched: true, triggerIds: this.singleId(v.trigger), failed: null, nearness: v.passed }
      : { automation, matched: false, triggerIds: NO_TRIGGERS, failed: v.failed, nearness: v.passed };
  }

  /** An automation with several triggers listening to the event: matched by any of them. */
  private verdictOfMany(automation: AutomationRow, verdicts: TriggerVerdict[]): AutomationVerdict {
    verdicts.sort((a, b) => a.trigger.position - b.trigger.position);
    const matching = verdicts.filter((v) => v.failed === null);
    if (matching.length === 1) return this.verdictOf(automation, matching[0]);
    if (matching.length > 1) {
      const triggerIds: string[] = [];
      let nearness = 0;
      for (const v of matching) {
        triggerIds.push(v.trigger.id);
        nearness = Math.max(nearness, v.passed);
      }
      return { automation, matched: true, triggerIds: Object.freeze(triggerIds), failed: null, nearness };
    }
    // The nearest trigger explains best; on a tie, the first in trigger order.
    return this.verdictOf(automation, verdicts.reduce((best, v) => (v.passed > best.passed ? v : best)));
  }

  private singleId(trigger: TriggerRow): readonly string[] {
    let ids = this.single.get(trigger.id);
    if (ids === undefined) {
      // (ids of deleted triggers stay until the memo starts over: a bound, not a leak)
      if (this.single.size >= SINGLE_ID_MEMO_SIZE) this.single.clear();
      this.single.set(trigger.id, (ids = Object.freeze([trigger.id])));
    }
    return ids;
  }

  /** Compiled once per stored filter list; a filter that does not compile fails when reached. */
  private compile(filters: readonly EventFilter[]): CompiledFilter[] {
    if (filters.length === 0) return [];
    const hit = this.compiled.get(filters);
    if (hit) return hit;
    const result = filters.map((filter): CompiledFilter => {
      try {
        return { filter, compiled: compileFilter(filter) };
      } catch (err) {
        return { filter, error: err instanceof Error ? err.message : String(err) };
      }
    });
    this.compiled.set(filters, result);
    return result;
  }
}
