import { describe, expect, it } from 'vitest';
import { eventTypeId } from '../../daemon/automations/ids.js';

const team = '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b';

describe('eventTypeId', () => {
  it('is one stable UUID per team, provider and event type, a "|" in the provider included', () => {
    expect(eventTypeId(team, 'a', 'b|c')).not.toBe(eventTypeId(team, 'a|b', 'c'));
    expect(eventTypeId(team, 'a\\', '|c')).not.toBe(eventTypeId(team, 'a|', 'c'));
    expect(eventTypeId(team, 'github', 'push')).toBe(eventTypeId(team, 'github', 'push'));
    expect(eventTypeId(team, 'github', 'push')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keeps the id it always had for a provider without "|" or "\\": ids stored by earlier daemons still match', () => {
    expect(eventTypeId(team, 'github', 'pull_request.opened')).toBe('6a6ffe0d-7c3b-55e3-bb6b-b2d7b662f279');
  });
});
