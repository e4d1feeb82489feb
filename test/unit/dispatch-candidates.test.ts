// The dispatch reads only the triggers listening to an event's key: checked on a real journal
// store holding 1,000 automations, by counting the rows each read hands out.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchKey, typeKey } from '../../daemon/automations/ids.js';
import { candidateTriggers, nearbyTriggers } from '../../daemon/dispatch/candidates.js';
import { openStore, type JournalStore, type ReadTx } from '../../daemon/store/index.js';
import type { AutomationRow, TriggerRow } from '../../daemon/store/tables.js';

const TEAM = 'team-a';
const OTHER_TEAM = 'team-b';
const at = '2026-01-01T00:00:00.000Z';
let dir: string;
let store: JournalStore;

function automation(id: string, team = TEAM): AutomationRow {
  return {
    id, team_id: team, name: id, name_key: id, prompt: 'p', status: 'active', environment_id: null, repo_filters: {}, last_error: null,
    last_error_at: null, consecutive_failures: 0, created_at: at, updated_at: at,
  };
}

function trigger(a: AutomationRow, provider: string, eventType: string): TriggerRow {
  return {
    id: `t-${a.id}`, automation_id: a.id, team_id: a.team_id, kind: 'event', position: 0, enabled: true, status: 'active', total_runs: 0,
    created_at: at, updated_at: at, timezone: null, cron_expression: null, one_off_at: null, next_run_at: null, last_run_at: null,
    lease_until: null, lease_owner: null, provider, event_type: eventType, connection_id: null, filters: [],
    match_key: matchKey(a.team_id, provider, eventType), type_key: typeKey(a.team_id, eventType),
  };
}

/** Passes reads through to the real transaction, counting the rows they return. */
function counting(tx: ReadTx) {
  const seen = { rows: 0 };
  const wrapped: ReadTx = {
    async get(table, key) {
      const row = await tx.get(table, key);
      if (row) seen.rows++;
      return row;
    },
    async getMany(table, keys) {
      const rows = await tx.getMany(table, keys);
      seen.rows += rows.filter(Boolean).length;
      return rows;
    },
    async list(table, where) {
      const rows = await tx.list(table, where);
      seen.rows += rows.length;
      return rows;
    },
    count: (table, where) => tx.count(table, where),
  };
  return { tx: wrapped, seen };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-candidates-'));
  store = await openStore({ dataDir: dir, logger: { info() {}, warn() {}, error() {} } });
  await store.write((tx) => {
    for (let i = 0; i < 1000; i++) {
      const a = automation(`a${i}`);
      tx.put('automations', a);
      // 10 listen to generic/deploy.finished, 5 to github/deploy.finished, the rest elsewhere.
      const [provider, type] = i % 100 === 0 ? ['generic', 'deploy.finished'] : i % 200 === 1 ? ['github', 'deploy.finished'] : ['generic', `other.${i % 97}`];
      tx.put('triggers', trigger(a, provider, type));
    }
    const foreign = automation('foreign', OTHER_TEAM);
    tx.put('automations', foreign);
    tx.put('triggers', trigger(foreign, 'generic', 'deploy.finished'));
  });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('candidate triggers', () => {
  it('reads only the listeners of the exact key (and their automations), not the team', async () => {
    await store.read(async (raw) => {
      const { tx, seen } = counting(raw);
      const found = await candidateTriggers(tx, TEAM, { provider: 'generic', event_type: 'deploy.finished' });
      expect(found.map((c) => c.automation.id)).toEqual(['a0', 'a100', 'a200', 'a300', 'a400', 'a500', 'a600', 'a700', 'a800', 'a900']);
      expect(seen.rows).toBe(20);
    });
  });

  it('finds listeners of the same event type under other providers through the second index', async () => {
    await store.read(async (raw) => {
      const { tx, seen } = counting(raw);
      const found = await nearbyTriggers(tx, TEAM, { provider: 'generic', event_type: 'deploy.finished' });
      expect(found.map((c) => c.trigger.provider)).toEqual(Array(5).fill('github'));
      // the index holds the 15 listeners of the type; only the 5 others get their automation read
      expect(seen.rows).toBe(15 + 5);
    });
  });

  it('never returns another team\'s triggers', async () => {
    const found = await store.read((tx) => candidateTriggers(tx, OTHER_TEAM, { provider: 'generic', event_type: 'deploy.finished' }));
    expect(found.map((c) => c.automation.id)).toEqual(['foreign']);
  });
});
