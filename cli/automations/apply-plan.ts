// What `svc automations apply` will do: each automation of the file, matched by name
// (case-insensitive) against the team's, is created when missing, updated in the fields the
// file sets that differ, or left alone. Pure: the command fetches, this decides, the command
// sends. An update sends only the differing fields; triggers, when they differ, go as the whole
// set with the ids of unchanged (or same-kind) current triggers reused, so counters survive.
import { automationNameKey } from '../../shared/automation-names.js';
import type { AutomationDto } from '../../shared/schemas/automations.js';
import { assignTriggerIds, type AutomationSpec, changedFields, Problems, requestBody, triggerKey, triggerContentOf } from './spec.js';

export type PlannedAction = 'create' | 'update' | 'unchanged';

export interface PlanItem {
  name: string;
  action: PlannedAction;
  /** null for an automation still to be created */
  id: string | null;
  /** the fields that differ (update), empty otherwise */
  changes: string[];
  /** the request body (create, update) */
  body?: Record<string, unknown>;
}

export interface FileEntry {
  spec: AutomationSpec;
  /** how problems name the entry: `apply.yaml [2]` */
  label: string;
}

/** The plan, or a UsageError listing every problem found (nothing is sent then). */
export function planApply(
  entries: readonly FileEntry[],
  current: readonly AutomationDto[],
  options: { now: Date; defaultEnvironmentId?: string | null },
): PlanItem[] {
  const problems = new Problems();
  const byName = new Map(current.map((a) => [automationNameKey(a.name), a]));
  const seen = new Map<string, string>();
  const plan: PlanItem[] = [];
  for (const { spec, label } of entries) {
    if (spec.name === undefined) {
      problems.add(`${label}: name is required (apply matches automations by name)`);
      continue;
    }
    const key = automationNameKey(spec.name);
    const earlier = seen.get(key);
    if (earlier) {
      problems.add(`${label}: the name "${spec.name}" is already used by ${earlier} (names are case-insensitive)`);
      continue;
    }
    seen.set(key, label);
    const match = byName.get(key);
    if (!match) {
      const missing = [spec.prompt === undefined ? 'prompt' : null, spec.triggers === undefined ? 'triggers' : null].filter(Boolean);
      if (missing.length) {
        problems.add(`${label}: "${spec.name}" does not exist yet, and creating it needs ${missing.join(' and ')}`);
        continue;
      }
      checkOneOffsAhead(spec, [], label, options.now, problems);
      plan.push({ name: spec.name, action: 'create', id: null, changes: [], body: requestBody(spec) });
      continue;
    }
    const changes = changedFields(spec, match, options.defaultEnvironmentId);
    if (changes.length === 0) {
      plan.push({ name: match.name, action: 'unchanged', id: match.id, changes });
      continue;
    }
    const partial: AutomationSpec = {};
    for (const field of changes) (partial as Record<string, unknown>)[field] = spec[field];
    const triggers = changes.includes('triggers') ? assignTriggerIds(spec.triggers!, match.triggers) : undefined;
    if (triggers) checkOneOffsAhead(spec, match.triggers.map((t) => triggerKey(triggerContentOf(t))), label, options.now, problems);
    plan.push({ name: spec.name, action: 'update', id: match.id, changes, body: requestBody(partial, triggers) });
  }
  problems.throwIfAny('the file cannot be applied');
  return plan;
}

/**
 * A one-off the daemon does not already have must lie ahead (the daemon would refuse it); one it
 * has, even spent, is the same trigger and stays as it is.
 */
function checkOneOffsAhead(spec: AutomationSpec, currentKeys: readonly string[], label: string, now: Date, problems: Problems): void {
  spec.triggers?.forEach((t, i) => {
    if (t.kind !== 'schedule' || t.one_off_at === null || currentKeys.includes(triggerKey(t))) return;
    if (Date.parse(t.one_off_at) <= now.getTime()) {
      problems.add(`${label}: triggers[${i}].one_off_at ${t.one_off_at} is in the past; a new one-off must lie ahead`);
    }
  });
}
