// `svc automations apply -f FILE`: matched by name, creates what is missing, updates what
// differs, and a second run changes nothing (no write reaches the daemon: updated_at and trigger
// ids stay as they were). Real bin/svc.js against a real daemon, one team per test.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NAME_PAIRS } from '../helpers/name-pairs.js';
import { useCliTeams } from '../helpers/cli-teams.js';

const cli = useCliTeams('apply');

async function newTeam() {
  const t = await cli.newTeam();
  /** a file in the cli.sandbox, named after the team so tests never share one */
  const file = async (name: string, text: string) => {
    const path = join(cli.sandbox.home, `${t.slug}-${name}`);
    await writeFile(path, text);
    return path;
  };
  return { ...t, file };
}

const TEAM_YAML = `
# The team's automations, kept in the repository.
- name: Nightly report
  prompt: |
    Summarise what changed today.
  triggers:
    - kind: schedule
      cron_expression: "30 2 * * *"
      timezone: Europe/Berlin
- name: Deploy review
  prompt: Review the deploy.
  event_type: deploy.finished
  event_provider: github
  event_filter:
    - "$.data.env in prod,staging"
    - jsonPath: $.data.sha
      operator: exists
- name: Weekly digest
  prompt: Write the weekly digest.
  status: paused
  cron_expression: "0 9 * * MON"
  timezone: America/New_York
`;

/** What must not move when nothing is written: each automation's updated_at and trigger ids. */
const fingerprint = (list: any[]) =>
  Object.fromEntries(list.map((a) => [a.name, { updated_at: a.updated_at, triggers: a.triggers.map((t: any) => t.id), status: a.status }]));

describe('svc automations apply', () => {
  it('creates every automation of a YAML list, then a second run reports all unchanged and writes nothing', async () => {
    const t = await newTeam();
    const path = await t.file('team.yaml', TEAM_YAML);
    const first = await t.svc(['automations', 'apply', '-f', path, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const created = first.json();
    expect(created.map((x: any) => [x.name, x.action])).toEqual([
      ['Nightly report', 'created'],
      ['Deploy review', 'created'],
      ['Weekly digest', 'created'],
    ]);
    for (const x of created) expect(Object.keys(x).sort()).toEqual(['action', 'id', 'name']);
    const after = await t.automations();
    expect(after).toHaveLength(3);
    expect(after.find((a) => a.name === 'Deploy review')).toMatchObject({
      event_provider: 'github',
      event_type: 'deploy.finished',
      event_filter: [{ jsonPath: '$.data.env', operator: 'in', value: 'prod,staging' }, { jsonPath: '$.data.sha', operator: 'exists' }],
    });
    expect(after.find((a) => a.name === 'Weekly digest')).toMatchObject({ status: 'paused', cron_expression: '0 9 * * MON', timezone: 'America/New_York' });
    expect(after.find((a) => a.name === 'Nightly report')?.prompt).toBe('Summarise what changed today.\n');

    const before = fingerprint(after);
    const second = await t.svc(['automations', 'apply', '-f', path, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json()).toEqual(created.map((x: any) => ({ ...x, action: 'unchanged' })));
    expect(second.stderr).toContain('0 created, 0 updated, 3 unchanged.');
    expect(fingerprint(await t.automations())).toEqual(before);
  });

  it('prints a table of what it did, with the fields that changed', async () => {
    const t = await newTeam();
    const path = await t.file('team.yaml', TEAM_YAML);
    await t.svc(['automations', 'apply', '-f', path]);
    const edited = await t.file('edited.yaml', TEAM_YAML.replace('Review the deploy.', 'Review the deploy carefully.').replace('"30 2 * * *"', '"45 2 * * *"'));
    const r = await t.svc(['automations', 'apply', '-f', edited]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ACTION\s+NAME\s+ID\s+CHANGES$/);
    expect(lines[1]).toMatch(/^updated\s+Nightly report\s+[0-9a-f-]{36}\s+triggers$/);
    expect(lines[2]).toMatch(/^updated\s+Deploy review\s+[0-9a-f-]{36}\s+prompt$/);
    expect(lines[3]).toMatch(/^unchanged\s+Weekly digest\s+[0-9a-f-]{36}\s+-$/);
    expect(r.stderr).toContain('0 created, 2 updated, 1 unchanged.');
  });

  it('updates only what differs: an edited trigger keeps its id and counters, an unchanged automation is not written', async () => {
    const t = await newTeam();
    const path = await t.file('team.yaml', TEAM_YAML);
    await t.svc(['automations', 'apply', '-f', path]);
    // Give the event trigger a run, so there is a counter to keep.
    const sent = await t.api('POST', `/teams/${t.slug}/webhooks/events`, { provider: 'github', event_type: 'deploy.finished', data: { env: 'prod', sha: 'abc' } });
    expect(sent.body.data.accepted).toBe(true);
    const before = await t.automations();
    const review = before.find((a) => a.name === 'Deploy review');

    const edited = TEAM_YAML.replace('"$.data.env in prod,staging"', '"$.data.env equals prod"');
    const r = await t.svc(['automations', 'apply', '-f', await t.file('edited.yaml', edited), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().map((x: any) => x.action)).toEqual(['unchanged', 'updated', 'unchanged']);

    const after = await t.automations();
    const reviewAfter = after.find((a) => a.name === 'Deploy review');
    expect(reviewAfter.triggers[0]).toMatchObject({ id: review.triggers[0].id, total_runs: 1, filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }, { jsonPath: '$.data.sha', operator: 'exists' }] });
    expect(reviewAfter.total_runs).toBe(1);
    const untouched = (list: any[]) => fingerprint(list.filter((a) => a.name !== 'Deploy review'));
    expect(untouched(after)).toEqual(untouched(before));
  });

  it('adding a trigger keeps the id of the unchanged one', async () => {
    const t = await newTeam();
    const one = `name: Multi\nprompt: p\ntriggers:\n  - kind: schedule\n    cron_expression: "0 1 * * *"\n`;
    await t.svc(['automations', 'apply', '-f', await t.file('one.yaml', one)]);
    const [before] = await t.automations();
    const two = `${one}  - kind: event\n    event_type: push\n`;
    const r = await t.svc(['automations', 'apply', '-f', await t.file('two.yaml', two), '--json']);
    expect(r.json()[0].action).toBe('updated');
    const [after] = await t.automations();
    expect(after.triggers.map((x: any) => x.kind)).toEqual(['schedule', 'event']);
    expect(after.triggers[0].id).toBe(before.triggers[0].id);
  });

  it('matches names case-insensitively and leaves fields the file does not set', async () => {
    const t = await newTeam();
    const made = await t.svc(['automations', 'create', '--name', 'Nightly', '--prompt', 'p', '--cron', '0 1 * * *', '--status', 'paused', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const same = await t.svc(['automations', 'apply', '-f', await t.file('same.yaml', 'name: NIGHTLY\nprompt: p\n')]);
    expect(same.code, same.stderr).toBe(0);
    // The name is a field the file sets: its spelling is applied, nothing else changes.
    expect(same.stdout).toMatch(/^updated\s+NIGHTLY\s+\S+\s+name$/m);
    const [a] = await t.automations();
    expect(a).toMatchObject({ id: made.json().id, name: 'NIGHTLY', status: 'paused', cron_expression: '0 1 * * *' });
    const again = await t.svc(['automations', 'apply', '-f', await t.file('same.yaml', 'name: nightly\nprompt: p\n'), '--json']);
    expect(again.json()[0].action).toBe('updated');
    const third = await t.svc(['automations', 'apply', '-f', await t.file('same.yaml', 'name: nightly\nprompt: p\n'), '--json']);
    expect(third.json()[0].action).toBe('unchanged');
  });

  // The CLI matches names by the daemon's rule (shared/automation-names.ts): a name the daemon
  // holds to be taken is an update, one it holds free a create, never a create answered by 409.
  it('treats a name as the automation the daemon holds it to be, for every pair of name spellings', async () => {
    const t = await newTeam();
    const base = `/teams/${t.slug}/automations`;
    const clear = async () => {
      for (const a of await t.automations()) expect((await t.api('DELETE', `${base}/${a.id}`)).status).toBe(200);
    };
    for (const { existing, given, same } of NAME_PAIRS) {
      const pair = `${JSON.stringify(existing)} / ${JSON.stringify(given)}`;
      const made = await t.api('POST', base, { name: existing, prompt: 'p', event_type: 'x' });
      expect(made.status, pair).toBe(201);
      const daemon = await t.api('POST', base, { name: given, prompt: 'p', event_type: 'x' });
      expect(daemon.status, `daemon: ${pair}`).toBe(same ? 409 : 201);
      if (!same) expect((await t.api('DELETE', `${base}/${daemon.body.data.id}`)).status).toBe(200);
      const path = await t.file('pair.json', JSON.stringify({ name: given, prompt: 'q', event_type: 'x' }));
      const r = await t.svc(['automations', 'apply', '-f', path, '--json']);
      expect(r.code, `${pair}: ${r.stderr}`).toBe(0);
      expect(r.json()[0], `cli: ${pair}`).toMatchObject(same ? { action: 'updated', id: made.body.data.id } : { action: 'created' });
      expect(await t.automations(), pair).toHaveLength(same ? 1 : 2);
      await clear();
    }
  }, 60_000);

  it('finds "Straße" by the name "STRASSE" in get, as apply does', async () => {
    const t = await newTeam();
    const made = await t.api('POST', `/teams/${t.slug}/automations`, { name: 'Straße', prompt: 'p', event_type: 'x' });
    const r = await t.svc(['automations', 'get', 'STRASSE', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ id: made.body.data.id, name: 'Straße' });
  });

  it('takes a JSON file with one automation, and {automations: [...]}', async () => {
    const t = await newTeam();
    const single = await t.file('one.json', JSON.stringify({ name: 'Solo', prompt: 'p', triggers: [{ kind: 'event', event_type: 'ping' }] }));
    const r1 = await t.svc(['automations', 'apply', '-f', single, '--json']);
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.json()).toEqual([{ name: 'Solo', action: 'created', id: expect.any(String) }]);
    const wrapped = await t.file('many.json', JSON.stringify({ automations: [{ name: 'Solo', prompt: 'p', triggers: [{ kind: 'event', event_type: 'ping' }] }, { name: 'Duo', prompt: 'q', one_off_at: '2031-01-01T00:00:00Z' }] }));
    const r2 = await t.svc(['automations', 'apply', '-f', wrapped, '--json']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.json().map((x: any) => x.action)).toEqual(['unchanged', 'created']);
  });

  it('takes several YAML documents, and reads stdin with -f -', async () => {
    const t = await newTeam();
    const docs = 'name: A\nprompt: a\ncron_expression: "0 1 * * *"\n---\nname: B\nprompt: b\nevent_type: x\n';
    const r = await t.svc(['automations', 'apply', '-f', '-', '--json'], { input: docs });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().map((x: any) => [x.name, x.action])).toEqual([['A', 'created'], ['B', 'created']]);
  });

  it('round-trips: what `get --json` prints (with --next N too) applies as unchanged', async () => {
    const t = await newTeam();
    await t.svc(['automations', 'apply', '-f', await t.file('team.yaml', TEAM_YAML)]);
    for (const extra of [[], ['--next', '3']]) {
      const got = await t.svc(['automations', 'get', 'Nightly report', '--json', ...extra]);
      const path = await t.file('exported.json', got.stdout);
      const r = await t.svc(['automations', 'apply', '-f', path, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toEqual([{ name: 'Nightly report', action: 'unchanged', id: got.json().id }]);
    }
  });

  it('--dry-run shows the plan and changes nothing', async () => {
    const t = await newTeam();
    await t.svc(['automations', 'create', '--name', 'Nightly report', '--prompt', 'old prompt', '--cron', '30 2 * * *', '--tz', 'Europe/Berlin']);
    const before = fingerprint(await t.automations());
    const path = await t.file('team.yaml', TEAM_YAML);
    const r = await t.svc(['automations', 'apply', '-f', path, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().map((x: any) => [x.name, x.action])).toEqual([
      ['Nightly report', 'update'],
      ['Deploy review', 'create'],
      ['Weekly digest', 'create'],
    ]);
    expect(r.json()[1].id).toBeNull();
    expect(fingerprint(await t.automations())).toEqual(before);
    const text = await t.svc(['automations', 'apply', '-f', path, '--dry-run']);
    expect(text.stdout).toMatch(/^would update\s+Nightly report\s+\S+\s+prompt$/m);
    expect(text.stdout).toMatch(/^would create\s+Deploy review\s+-\s+-$/m);
    expect(text.stderr).toContain('Dry run: nothing was changed.');
  });

  describe('refuses a file it cannot apply, before writing anything: exit 5 for its content, 2 for no file', () => {
    it('names every invalid entry (bad cron, bad zone, bad filter) and creates none of the valid ones', async () => {
      const t = await newTeam();
      const bad = `
- name: Good
  prompt: p
  cron_expression: "0 1 * * *"
- name: Bad cron
  prompt: p
  cron_expression: "0 9 * *"
- name: Bad zone
  prompt: p
  triggers: [{kind: schedule, cron_expression: "0 1 * * *", timezone: Mars/Base}]
- name: Bad filter
  prompt: p
  event_type: x
  event_filter: ["$.data.a resembles b"]
`;
      const r = await t.svc(['automations', 'apply', '-f', await t.file('bad.yaml', bad)]);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('[1] "Bad cron": cron_expression "0 9 * *": must have exactly 5 fields');
      expect(r.stderr).toContain('[2] "Bad zone": triggers[0].timezone "Mars/Base" is not an IANA time zone');
      expect(r.stderr).toContain('[3] "Bad filter": event_filter[0] "$.data.a resembles b": unknown operator "resembles"');
      expect(await t.automations()).toEqual([]);
    });

    it("refuses what the schema's limits refuse (a 201-character name, 51 triggers) before writing the valid entries", async () => {
      const t = await newTeam();
      const triggers = Array.from({ length: 51 }, (_, i) => ({ kind: 'event', event_type: `e${i}` }));
      const doc = JSON.stringify([
        { name: 'Valid first', prompt: 'p', event_type: 'x' },
        { name: 'n'.repeat(201), prompt: 'p', event_type: 'x' },
        { name: 'Many triggers', prompt: 'p', triggers },
        // 200 characters, one of them an emoji (two UTF-16 units): within the limit
        { name: `${'é'.repeat(199)}😀`, prompt: 'p', event_type: 'x' },
      ]);
      const r = await t.svc(['automations', 'apply', '-f', await t.file('limits.json', doc)]);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('name has 201 characters; at most 200');
      expect(r.stderr).toContain('triggers has 51 triggers; at most 50');
      expect(r.stderr).not.toContain('[3]');
      expect(await t.automations()).toEqual([]);
    });

    it('refuses a new automation without prompt or triggers, and a name used twice', async () => {
      const t = await newTeam();
      const r = await t.svc(['automations', 'apply', '-f', await t.file('x.yaml', '- name: Lonely\n- name: Twin\n  prompt: p\n  event_type: x\n- name: TWIN\n  prompt: q\n  event_type: x\n')]);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('"Lonely" does not exist yet, and creating it needs prompt and triggers');
      expect(r.stderr).toContain('the name "TWIN" is already used by');
      expect(await t.automations()).toEqual([]);
    });

    it('explains an unquoted cron in YAML', async () => {
      const t = await newTeam();
      const r = await t.svc(['automations', 'apply', '-f', await t.file('star.yaml', 'name: S\nprompt: p\ncron_expression: */5 * * * *\n')]);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/is not valid YAML at line 3.*must be quoted/);
    });

    it('refuses a missing file and a missing -f', async () => {
      const t = await newTeam();
      const missing = await t.svc(['automations', 'apply', '-f', join(cli.sandbox.home, 'nope.yaml')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no such file');
      const noFlag = await t.svc(['automations', 'apply']);
      expect(noFlag.code).toBe(2);
      expect(noFlag.stderr).toContain("required option '-f, --file <path>' not specified");
    });
  });

  it('exits 3 on a refused key, without applying anything', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'apply', '-f', await t.file('team.yaml', TEAM_YAML)], { env: { SVC_API_KEY: 'svc_team_notARealKey0000000000000000000000000' } });
    expect(r.code).toBe(3);
    expect(await t.automations()).toEqual([]);
  });

  it('stops at a failing request and prints what it did, --json included, with the failure\'s exit code; a second run continues', async () => {
    const t = await newTeam();
    // An environment id the CLI takes as given: only the daemon can say it is none of the team's.
    const path = await t.file('half.json', JSON.stringify([
      { name: 'first', prompt: 'p', event_type: 'e' },
      { name: 'second', prompt: 'p', event_type: 'e', environment_id: '00000000-0000-4000-8000-000000000000' },
    ]));
    const r = await t.svc(['automations', 'apply', '-f', path, '--json']);
    expect(r.code).toBe(5);
    const done = r.json<{ name: string; action: string; id: string }[]>();
    expect(done).toEqual([{ name: 'first', action: 'created', id: expect.any(String) }]);
    expect(r.stderr).toContain('Stopped after 1 of 2; running apply again continues from here.');
    expect((await t.automations()).map((a) => a.id)).toEqual([done[0].id]);

    await writeFile(path, JSON.stringify([{ name: 'first', prompt: 'p', event_type: 'e' }, { name: 'second', prompt: 'q', event_type: 'e' }]));
    const again = await t.svc(['automations', 'apply', '-f', path, '--json']);
    expect([again.code, again.json<{ action: string }[]>().map((o) => o.action)]).toEqual([0, ['unchanged', 'created']]);
  });
});
