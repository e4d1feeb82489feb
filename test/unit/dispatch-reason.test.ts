import { describe, expect, it } from 'vitest';
import type { AutomationVerdict } from '../../daemon/dispatch/matcher.js';
import { eventReason, type ReasonInput } from '../../daemon/dispatch/reason.js';
import type { AutomationRow } from '../../daemon/store/tables.js';

const event = { id: 'e1', provider: 'generic', event_type: 'deploy.finished' };

function verdict(name: string, over: Partial<AutomationVerdict> & { status?: AutomationRow['status'] } = {}): AutomationVerdict {
  const automation = { id: name, name, status: over.status ?? 'active' } as AutomationRow;
  return { automation, matched: false, triggerIds: [], failed: `${name} failed`, nearness: 5, ...over };
}

const reason = (over: Partial<ReasonInput>) => eventReason({ event, verdicts: [], dispatched: 0, repeated: 0, failures: [], dryRun: false, ...over });

describe('eventReason', () => {
  it('counts dispatched automations', () => {
    expect(reason({ dispatched: 1 })).toBe('dispatched to 1 automation');
    expect(reason({ dispatched: 2 })).toBe('dispatched to 2 automations');
    expect(reason({ dispatched: 2, dryRun: true })).toBe('would dispatch to 2 automations');
  });

  it('says when a retried event id started nothing new', () => {
    expect(reason({ dispatched: 2, repeated: 2 })).toBe('dispatched to 2 automations (2 already dispatched for event id "e1": no new session)');
  });

  it('says nothing listens when no trigger listens to the provider and event type', () => {
    expect(reason({})).toBe('no active automation listens to provider "generic" event "deploy.finished"');
  });

  it('points at a provider mix-up found under the same event type', () => {
    const v = verdict('GH', { nearness: 0, failed: 'trigger of "GH" listens to provider "github", not "generic"' });
    expect(reason({ verdicts: [v] })).toBe(
      'no active automation listens to provider "generic" event "deploy.finished": trigger of "GH" listens to provider "github", not "generic"',
    );
  });

  it('says no active automation listens when the only listeners are paused', () => {
    const v = verdict('Deploy bot', { status: 'paused', nearness: 2, failed: 'automation "Deploy bot" is paused' });
    expect(reason({ verdicts: [v] })).toBe('no active automation listens to provider "generic" event "deploy.finished": automation "Deploy bot" is paused');
  });

  it('names the nearest automations first and summarises the rest', () => {
    const vs = [
      verdict('paused', { status: 'paused', nearness: 2, failed: 'P' }),
      verdict('filter', { nearness: 6, failed: 'F' }),
      verdict('conn', { nearness: 4, failed: 'C' }),
      verdict('other', { nearness: 0, failed: 'O' }),
      verdict('filter2', { nearness: 6, failed: 'F2' }),
    ];
    expect(reason({ verdicts: vs })).toBe('no automation matched provider "generic" event "deploy.finished": F; F2; C; and 2 other automations did not match');
  });

  it('reports session start failures beside what was dispatched', () => {
    const failures = [{ name: 'B', message: 'the runner refused' }];
    expect(reason({ dispatched: 1, failures })).toBe('dispatched to 1 automation; session start failed for "B": the runner refused');
    expect(reason({ failures })).toBe('nothing dispatched; session start failed for "B": the runner refused');
    // (on a dry run, the failures are earlier deliveries' refusals, and nothing would start)
    expect(reason({ failures, dryRun: true })).toBe('nothing would dispatch; session start failed for "B": the runner refused');
  });
});
