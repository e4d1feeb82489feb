// One rule for when two automation names are the same: the CLI's apply plan must match a file's
// name to the automation the daemon would refuse a second one for (else it plans a create and
// gets 409). The daemon side of the same pairs is in test/daemon/automations.test.ts.
import { describe, expect, it } from 'vitest';
import { planApply } from '../../cli/automations/apply-plan.js';
import type { AutomationDto } from '../../shared/schemas/automations.js';
import { NAME_PAIRS } from '../helpers/name-pairs.js';

const existing = (name: string) =>
  ({ id: '00000000-0000-4000-8000-000000000001', name, prompt: 'p', status: 'active', environment_id: null, repo_filters: {}, triggers: [] }) as unknown as AutomationDto;

const plan = (given: string, current: string) =>
  planApply([{ spec: { name: given, prompt: 'q', triggers: [{ kind: 'event', event_type: 'x', provider: 'generic', connection_id: null, filters: [], enabled: true }] }, label: 'f.yaml' }], [existing(current)], {
    now: new Date('2026-01-01T00:00:00Z'),
  })[0]!;

describe('svc automations apply: which automation a name in a file is', () => {
  it('plans an update of "Straße" for a file that says "STRASSE", not a create', () => {
    expect(plan('STRASSE', 'Straße')).toMatchObject({ action: 'update', id: existing('').id, changes: expect.arrayContaining(['name', 'prompt']) });
  });

  for (const { existing: current, given, same, why } of NAME_PAIRS) {
    it(`${JSON.stringify(given)} ${same ? 'is' : 'is not'} ${JSON.stringify(current)} (${why})`, () => {
      expect(plan(given, current).action).toBe(same ? 'update' : 'create');
    });
  }

  it('refuses one name twice in a file under the same rule ("Straße" then "STRASSE")', () => {
    const twice = () =>
      planApply(
        ['Straße', 'STRASSE'].map((name, i) => ({ spec: { name, prompt: 'p', triggers: [] }, label: `f.yaml [${i + 1}]` })),
        [],
        { now: new Date('2026-01-01T00:00:00Z') },
      );
    expect(twice).toThrow('the name "STRASSE" is already used by f.yaml [1]');
  });
});
