// `svc automations list|get|create|update|pause|resume|delete|run|runs`, run as the real
// bin/svc.js against a real daemon. Each test gets its own team, so their automations never mix.
import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextCronRuns } from '../../shared/cron.js';
import { envFor, runSvc, SVC_BIN } from '../helpers/cli.js';
import { useCliTeams } from '../helpers/cli-teams.js';
import { modulesLoadedBy, packagesAmong } from '../helpers/module-trace.js';

const cli = useCliTeams('auto');
const newTeam = () => cli.newTeam();

/** A daemon URL nobody listens on: a command that sent a request would exit 7, not 2. */
const NOWHERE = { SVC_BASE_URL: 'http://127.0.0.1:9/api/v1' };

describe('svc automations create', () => {
  it('creates a cron automation in a zone; --json prints only the automation', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--name', 'Standup', '--prompt', 'Summarise', '--cron', '0 9 * * 1-5', '--tz', 'Europe/Berlin', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const a = r.json();
    expect(a).toMatchObject({ name: 'Standup', prompt: 'Summarise', status: 'active', automation_type: 'schedule' });
    expect(a.triggers).toEqual([expect.objectContaining({ kind: 'schedule', cron_expression: '0 9 * * 1-5', timezone: 'Europe/Berlin', enabled: true })]);
    expect(r.stderr).toContain(`Created automation "Standup" (${a.id})`);
  });

  it('prints the automation as aligned text without --json', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--name', 'Plain', '--prompt', 'line one\nline two', '--cron', '30 6 * * *']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID: +[0-9a-f-]{36}$/m);
    expect(r.stdout).toMatch(/^Name: +Plain$/m);
    expect(r.stdout).toContain('1. cron "30 6 * * *" in UTC');
    expect(r.stdout).toContain('Prompt:\n  line one\n  line two');
    expect(r.stdout).not.toMatch(/\u001b\[/); // no colour off a terminal
  });

  it('reads --at as local time in --tz and sends it in UTC', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--name', 'Launch', '--prompt', 'Check', '--at', '2031-07-01T09:00', '--tz', 'America/New_York', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().triggers[0]).toMatchObject({ kind: 'schedule', one_off_at: '2031-07-01T13:00:00.000Z', timezone: 'America/New_York', cron_expression: null });
  });

  it('creates an event automation with provider, connection and filters (values keep their spaces)', async () => {
    const t = await newTeam();
    const r = await t.svc([
      'automations', 'create', '--name', 'Deploys', '--prompt', 'Review',
      '--event-type', 'deploy.finished', '--provider', 'github', '--connection', 'conn-1',
      '--filter', '$.data.env in prod,staging', '--filter', '$.data.title equals release notes v2', '--filter', '$.metadata.sha exists',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().triggers[0]).toMatchObject({
      kind: 'event', provider: 'github', event_type: 'deploy.finished', connection_id: 'conn-1',
      filters: [
        { jsonPath: '$.data.env', operator: 'in', value: 'prod,staging' },
        { jsonPath: '$.data.title', operator: 'equals', value: 'release notes v2' },
        { jsonPath: '$.metadata.sha', operator: 'exists' },
      ],
    });
  });

  it('keeps a JSONPath with spaces inside brackets whole, and reads a double-quoted value as a JSON string', async () => {
    const t = await newTeam();
    const r = await t.svc([
      'automations', 'create', '--name', 'Paths', '--prompt', 'p', '--event-type', 'x',
      '--filter', '$.data.tags[?@ == "a b"] exists', '--filter', '$.data.title NOT-EQUALS "  padded "', '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().triggers[0].filters).toEqual([
      { jsonPath: '$.data.tags[?@ == "a b"]', operator: 'exists', value: null },
      { jsonPath: '$.data.title', operator: 'not_equals', value: '  padded ' },
    ]);
  });

  it('combines trigger flags: --cron and --event-type make two triggers', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--name', 'Both', '--prompt', 'p', '--cron', '0 0 * * *', '--event-type', 'push', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().triggers.map((x: any) => x.kind)).toEqual(['schedule', 'event']);
  });

  it('adds one trigger for each --cron, --at and --event-type given, the qualifiers applying to each', async () => {
    const t = await newTeam();
    const r = await t.svc([
      'automations', 'create', '--name', 'Many', '--prompt', 'p', '--cron', '0 1 * * *', '--cron', '0 2 * * *', '--tz', 'Europe/Berlin',
      '--event-type', 'push', '--event-type', 'pull_request', '--provider', 'github', '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().triggers.map((x: any) => [x.cron_expression ?? x.event_type, x.timezone ?? x.provider])).toEqual([
      ['0 1 * * *', 'Europe/Berlin'], ['0 2 * * *', 'Europe/Berlin'], ['push', 'github'], ['pull_request', 'github'],
    ]);
  });

  it('refuses an option that takes one value given twice, and a flag with its --no- form: exit 2, nothing sent', async () => {
    const t = await newTeam();
    const twice = await t.svc(['automations', 'create', '--name', 'A', '--name', 'B', '--prompt', 'p', '--cron', '0 1 * * *']);
    expect([twice.code, twice.stderr.trim()]).toEqual([2, 'error: --name was given more than once: give it once']);
    const env = await t.svc(['env', 'set', 'X', '--value', 'v', '--secret', '--no-secret']);
    expect([env.code, env.stderr.trim()]).toEqual([2, 'error: --no-secret and --secret were both given: give one of them']);
    const profile = await t.svc(['--profile', 'a', '--profile', 'b', 'automations', 'list']);
    expect(profile.code).toBe(2);
    expect((await t.svc(['automations', 'list', '--json', '--json'])).code).toBe(0);
    expect((await t.svc(['automations', 'list', '--json'])).json()).toEqual([]);
  });

  it('reads the prompt from --prompt-file, and from stdin with --prompt-file -', async () => {
    const t = await newTeam();
    const file = join(cli.sandbox.home, 'prompt.md');
    await writeFile(file, 'From a file\nwith two lines\n');
    const a = await t.svc(['automations', 'create', '--name', 'F', '--prompt-file', file, '--cron', '0 1 * * *', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.json().prompt).toBe('From a file\nwith two lines');
    const b = await t.svc(['automations', 'create', '--name', 'S', '--prompt-file', '-', '--cron', '0 1 * * *', '--json'], { input: 'From stdin\n' });
    expect(b.code, b.stderr).toBe(0);
    expect(b.json().prompt).toBe('From stdin');
    // Only the final newline goes: indentation, trailing spaces and blank lines are the author's.
    await writeFile(file, '  indented\ncode  \n\n');
    const c = await t.svc(['automations', 'create', '--name', 'K', '--prompt-file', file, '--cron', '0 1 * * *', '--json']);
    expect(c.json().prompt).toBe('  indented\ncode  \n');
  });

  it('creates from a YAML file and from a JSON file, flags overriding the file', async () => {
    const t = await newTeam();
    const yamlFile = join(cli.sandbox.home, 'nightly.yaml');
    await writeFile(
      yamlFile,
      ['name: Nightly', 'prompt: |', '  Summarise the day.', 'status: paused', 'triggers:', '  - kind: schedule', '    cron_expression: "30 2 * * *"', '    timezone: Europe/Berlin', ''].join('\n'),
    );
    const y = await t.svc(['automations', 'create', '-f', yamlFile, '--json']);
    expect(y.code, y.stderr).toBe(0);
    expect(y.json()).toMatchObject({ name: 'Nightly', prompt: 'Summarise the day.\n', status: 'paused', cron_expression: '30 2 * * *', timezone: 'Europe/Berlin' });

    const jsonFile = join(cli.sandbox.home, 'event.json');
    await writeFile(jsonFile, JSON.stringify({ name: 'From JSON', prompt: 'p', event_type: 'build.failed', event_provider: 'ci', event_filter: [{ jsonPath: '$.data.branch', operator: 'equals', value: 'main' }] }));
    const j = await t.svc(['automations', 'create', '-f', jsonFile, '--name', 'Renamed', '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(j.json()).toMatchObject({ name: 'Renamed', event_type: 'build.failed', event_provider: 'ci', event_filter: [{ jsonPath: '$.data.branch', operator: 'equals', value: 'main' }] });
  });

  it('takes --environment as a slug or an id', async () => {
    const t = await newTeam();
    const env = await cli.daemon.admin('POST', `/admin/teams/${t.slug}/environments`, { name: 'Staging', slug: 'staging' });
    expect(env.status).toBe(201);
    const bySlug = await t.svc(['automations', 'create', '--name', 'A', '--prompt', 'p', '--cron', '0 1 * * *', '--environment', 'staging', '--json']);
    expect(bySlug.code, bySlug.stderr).toBe(0);
    expect(bySlug.json().environment_id).toBe(env.body.data.id);
    const missing = await t.svc(['automations', 'create', '--name', 'B', '--prompt', 'p', '--cron', '0 1 * * *', '--environment', 'nope']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain("no environment 'nope' in team");
  });

  // A value the daemon would refuse is exit 5, as its 400 would be; how the command is called, 2.
  describe('refuses bad input before any request: a bad value with exit 5, a bad call with exit 2', () => {
    const cases: [string, string[], RegExp, number][] = [
      ['a four-field cron', ['--cron', '0 9 * *'], /--cron "0 9 \* \*": must have exactly 5 fields .*got 4/, 5],
      ['a cron macro', ['--cron', '@daily'], /macros such as @daily are not supported/, 5],
      ['an hour out of range', ['--cron', '0 25 * * *'], /hour field "25"/, 5],
      ['an unknown zone', ['--cron', '0 9 * * *', '--tz', 'Mars/Olympus'], /--tz "Mars\/Olympus" is not an IANA time zone/, 5],
      ['a one-off in the past', ['--at', '2001-01-01T00:00:00Z'], /--at 2001-01-01T00:00:00Z is in the past/, 5],
      ['a one-off that is not a time', ['--at', 'tomorrow'], /--at "tomorrow" is not a time/, 5],
      ['an unknown filter operator', ['--event-type', 'x', '--filter', '$.data.a like b'], /unknown operator "like"/, 5],
      ['a filter without a value', ['--event-type', 'x', '--filter', '$.data.a equals'], /operator "equals" needs a value/, 5],
      ['an invalid JSONPath', ['--event-type', 'x', '--filter', '$..[ equals b'], /unbalanced brackets|jsonPath/, 5],
      ['a regex RE2 cannot compile', ['--event-type', 'x', '--filter', '$.data.a matches (a)\\1'], /not a valid regular expression/, 5],
      ['--tz without --cron or --at', ['--event-type', 'x', '--tz', 'UTC'], /--tz goes with --cron or --at/, 2],
      ['--provider without --event-type', ['--cron', '0 1 * * *', '--provider', 'github'], /go with --event-type/, 2],
      ['an unknown --status', ['--cron', '0 1 * * *', '--status', 'sleeping'], /argument 'sleeping' is invalid/, 2],
    ];
    for (const [what, flags, message, code] of cases) {
      it(`refuses ${what}`, async () => {
        const r = await runSvc(cli.sandbox, ['automations', 'create', '--name', 'X', '--prompt', 'p', ...flags], { env: { ...NOWHERE, SVC_API_KEY: 'svc_team_x', SVC_TEAM: 't' } });
        expect(r.code, r.stderr).toBe(code);
        expect(r.stderr).toMatch(message);
        expect(r.stdout).toBe('');
      });
    }

    it('names every missing required field', async () => {
      const r = await runSvc(cli.sandbox, ['automations', 'create'], { env: { ...NOWHERE, SVC_API_KEY: 'svc_team_x', SVC_TEAM: 't' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('missing --name, --prompt or --prompt-file, a trigger (--cron, --at or --event-type)');
    });

    it('refuses a file with an unknown field or a bad trigger, naming each', async () => {
      const file = join(cli.sandbox.home, 'bad.yaml');
      await writeFile(file, 'name: X\nprompt: p\ncolour: blue\ntriggers:\n  - kind: schedule\n    cron_expression: "61 * * * *"\n');
      const r = await runSvc(cli.sandbox, ['automations', 'create', '-f', file], { env: { ...NOWHERE, SVC_API_KEY: 'svc_team_x', SVC_TEAM: 't' } });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('unknown field "colour"');
      expect(r.stderr).toContain('triggers[0].cron_expression "61 * * * *"');
    });
  });

  it('exits 5 on a taken name (case-insensitive) and leaves one automation', async () => {
    const t = await newTeam();
    expect((await t.svc(['automations', 'create', '--name', 'Nightly', '--prompt', 'p', '--cron', '0 1 * * *'])).code).toBe(0);
    const r = await t.svc(['automations', 'create', '--name', 'NIGHTLY', '--prompt', 'p', '--cron', '0 1 * * *', '--json']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/already exists.*CONFLICT, HTTP 409/);
    expect(await t.automations()).toHaveLength(1);
  });

  it('exits 5 when the daemon rejects a field (an environment of no team)', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--name', 'E', '--prompt', 'p', '--cron', '0 1 * * *', '--environment', '00000000-0000-4000-8000-000000000000']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('VALIDATION_ERROR, HTTP 400');
  });

  it('exits 3 on a refused key, pointing at SVC_API_KEY', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--name', 'K', '--prompt', 'p', '--cron', '0 1 * * *'], { env: { SVC_API_KEY: 'svc_team_notARealKey0000000000000000000000000' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('SVC_API_KEY');
  });
});

describe('svc automations get', () => {
  it('finds an automation by id and by name, any case', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('Weekly Digest', '0 9 * * MON');
    const byId = await t.svc(['automations', 'get', a.id, '--json']);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.json()).toEqual(a);
    const byName = await t.svc(['automations', 'get', 'weekly digest', '--json']);
    expect(byName.json().id).toBe(a.id);
  });

  it('shows when an event automation last ran, which the API\'s last_run_at leaves to its schedule triggers', async () => {
    const t = await newTeam();
    const a = await t.eventAutomation('On deploy', { event_type: 'deploy' });
    expect(a.last_run_at).toBeNull();
    const never = await t.svc(['automations', 'get', a.id]);
    expect(never.stdout).toMatch(/Last run:\s+-/);
    expect((await t.svc(['events', 'send', '--type', 'deploy'])).code).toBe(0);
    const got = await t.svc(['automations', 'get', a.id]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/Last run:\s+\d{4}-\d{2}-\d{2}/);
  });

  it('exits 4 for an unknown id and for an unknown name', async () => {
    const t = await newTeam();
    const id = await t.svc(['automations', 'get', '6f1c2a3b-0000-4000-8000-000000000000']);
    expect(id.code).toBe(4);
    expect(id.stderr).toContain('NOT_FOUND, HTTP 404');
    const name = await t.svc(['automations', 'get', 'No such thing', '--json']);
    expect(name.code).toBe(4);
    expect(name.stdout).toBe('');
    expect(name.stderr).toContain('no automation with id or name "No such thing"');
    const twoLines = await t.svc(['automations', 'get', 'a\nb']);
    expect(twoLines.code).toBe(4);
    expect(twoLines.stderr).toContain('no automation with id or name "a\\nb"');
  });

  it('--next N lists the next runs as shared/cron computes them, in the zone and in UTC', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('N', '30 2 * * *', { timezone: 'Europe/Berlin' });
    const before = new Date();
    const r = await t.svc(['automations', 'get', a.id, '--next', '4', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const runs = r.json().next_runs as { utc: string; local: string; timezone: string; trigger_id: string }[];
    expect(runs).toHaveLength(4);
    const expected = nextCronRuns('30 2 * * *', 'Europe/Berlin', before, 5).map((x) => x.toISOString().replace('.000Z', 'Z'));
    // The CLI computed from its own "now", a moment after `before`: the same slots, unless a slot fell between.
    expect([expected.slice(0, 4), expected.slice(1, 5)]).toContainEqual(runs.map((x) => x.utc));
    for (const run of runs) {
      expect(run.timezone).toBe('Europe/Berlin');
      expect(run.trigger_id).toBe(a.triggers[0].id);
      expect(run.local).toMatch(/T02:30:00\+0[12]:00$/);
      expect(Date.parse(run.local)).toBe(Date.parse(run.utc));
    }
    const human = await t.svc(['automations', 'get', a.id, '--next', '2']);
    expect(human.stdout).toMatch(/Next runs:\n#\s+LOCAL TIME\s+UTC\n1\s+\w{3} \d{4}-\d{2}-\d{2} 02:30 CES?T\s+\S+Z\n2 /);
  });

  it('--next warns when the automation is paused, and says when nothing is scheduled', async () => {
    const t = await newTeam();
    const paused = await t.cronAutomation('P', '0 1 * * *', { status: 'paused' });
    const r = await t.svc(['automations', 'get', paused.id, '--next', '2']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the automation is paused');
    const ev = await t.eventAutomation('E', { event_type: 'x' });
    const none = await t.svc(['automations', 'get', ev.id, '--next', '2']);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('No upcoming runs');
  });
});

describe('svc automations list', () => {
  it('lists newest first, filters by status and type, pages with --limit, --cursor and --all', async () => {
    const t = await newTeam();
    await t.cronAutomation('One', '0 1 * * *');
    await t.eventAutomation('Two', { event_type: 'push' });
    await t.cronAutomation('Three', '0 3 * * *', { status: 'paused' });
    const all = await t.svc(['automations', 'list', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.json().map((a: any) => a.name)).toEqual(['Three', 'Two', 'One']);
    expect((await t.svc(['automations', 'list', '--status', 'paused', '--json'])).json().map((a: any) => a.name)).toEqual(['Three']);
    expect((await t.svc(['automations', 'list', '--type', 'event', '--json'])).json().map((a: any) => a.name)).toEqual(['Two']);

    const page = await t.svc(['automations', 'list', '--limit', '2', '--json']);
    expect(page.json()).toHaveLength(2);
    expect(page.stderr).toContain('pass --all');
    const cursor = /--cursor (\S+) for the next one/.exec(page.stderr)![1];
    const rest = await t.svc(['automations', 'list', '--limit', '2', '--cursor', cursor, '--json']);
    expect(rest.json().map((a: any) => a.name)).toEqual(['One']);
    expect(rest.stderr).toBe('');
    const every = await t.svc(['automations', 'list', '--limit', '2', '--all', '--json']);
    expect(every.json().map((a: any) => a.name)).toEqual(['Three', 'Two', 'One']);
    expect(every.stderr).toBe('');

    const text = await t.svc(['automations', 'list']);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+TRIGGERS\s+NEXT RUN\s+RUNS$/);
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/Two\s+active\s+event generic\/push\s+-\s+0$/);
  });

  it('says so on stderr when there are none, and prints [] with --json', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'list']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No automations.');
    expect((await t.svc(['automations', 'list', '--json'])).json()).toEqual([]);
  });

  it('refuses a bad --limit with exit 2', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'list', '--limit', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--limit');
  });
});

describe('svc automations update', () => {
  it('changes only the fields given', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('Old', '0 1 * * *', { prompt: 'keep me' });
    const r = await t.svc(['automations', 'update', 'old', '--name', 'New', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ id: a.id, name: 'New', prompt: 'keep me', cron_expression: '0 1 * * *' });
    expect(r.json().triggers[0].id).toBe(a.triggers[0].id);
  });

  it('--cron replaces the schedule but keeps the trigger id; --tz alone changes the zone only', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('S', '0 1 * * *');
    const moved = await t.svc(['automations', 'update', a.id, '--cron', '30 6 * * *', '--json']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.json().triggers).toEqual([expect.objectContaining({ id: a.triggers[0].id, cron_expression: '30 6 * * *', timezone: 'UTC' })]);
    const zoned = await t.svc(['automations', 'update', a.id, '--tz', 'Asia/Tokyo', '--json']);
    expect(zoned.code, zoned.stderr).toBe(0);
    expect(zoned.json().triggers).toEqual([expect.objectContaining({ id: a.triggers[0].id, cron_expression: '30 6 * * *', timezone: 'Asia/Tokyo' })]);
    // --cron alone now keeps Tokyo: a new time, not a new zone; --cron with --tz sets both.
    const retimed = await t.svc(['automations', 'update', a.id, '--cron', '0 7 * * *', '--json']);
    expect(retimed.json().triggers).toEqual([expect.objectContaining({ id: a.triggers[0].id, cron_expression: '0 7 * * *', timezone: 'Asia/Tokyo' })]);
    const both = await t.svc(['automations', 'update', a.id, '--cron', '0 8 * * *', '--tz', 'Europe/Berlin', '--json']);
    expect(both.json().triggers).toEqual([expect.objectContaining({ id: a.triggers[0].id, cron_expression: '0 8 * * *', timezone: 'Europe/Berlin' })]);
  });

  it('--filter alone replaces the filters of the event trigger, which keeps its run count', async () => {
    const t = await newTeam();
    const a = await t.eventAutomation('E', { event_type: 'deploy', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] });
    expect((await t.api('POST', `/teams/${t.slug}/webhooks/events`, { event_type: 'deploy', data: { env: 'prod' } })).body.data.accepted).toBe(true);
    const r = await t.svc(['automations', 'update', 'E', '--filter', '$.data.env in prod,staging', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().total_runs).toBe(1);
    expect(r.json().triggers[0]).toMatchObject({ id: a.triggers[0].id, total_runs: 1, event_type: 'deploy', filters: [{ jsonPath: '$.data.env', operator: 'in', value: 'prod,staging' }] });
  });

  it('refuses nothing to change, and a qualifier with no trigger of its kind, with exit 2', async () => {
    const t = await newTeam();
    await t.cronAutomation('S', '0 1 * * *');
    const nothing = await t.svc(['automations', 'update', 'S']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to change');
    const noEvent = await t.svc(['automations', 'update', 'S', '--provider', 'github']);
    expect(noEvent.code).toBe(2);
    expect(noEvent.stderr).toContain('has no event trigger');
  });

  it('exits 4 for an automation that does not exist', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'update', '6f1c2a3b-0000-4000-8000-000000000000', '--prompt', 'x']);
    expect(r.code).toBe(4);
  });
});

describe('svc automations pause / resume', () => {
  it('pauses (no next run) and resumes (next run from now)', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('Cycle', '*/5 * * * *');
    expect(a.next_run_at).not.toBeNull();
    const paused = await t.svc(['automations', 'pause', 'Cycle', '--json']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.json()).toMatchObject({ status: 'paused', next_run_at: null });
    expect(paused.stderr).toContain('Paused automation "Cycle"');
    const resumed = await t.svc(['automations', 'resume', a.id, '--json']);
    expect(resumed.json().status).toBe('active');
    expect(Date.parse(resumed.json().next_run_at)).toBeGreaterThan(Date.now() - 1000);
  });
});

describe('svc automations delete', () => {
  it('without a terminal and without --yes: exit 2 naming --yes, and nothing is deleted', async () => {
    const t = await newTeam();
    await t.cronAutomation('Keep', '0 1 * * *');
    const r = await t.svc(['automations', 'delete', 'Keep']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(await t.automations()).toHaveLength(1);
  });

  it('deletes with --yes; the automation is then not found (exit 4)', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('Gone', '0 1 * * *');
    const r = await t.svc(['automations', 'delete', a.id, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ success: true });
    expect(r.stderr).toContain('Deleted automation');
    expect((await t.svc(['automations', 'get', a.id])).code).toBe(4);
    expect((await t.svc(['automations', 'delete', a.id, '--yes'])).code).toBe(4);
  });
});

// util-linux `script` gives the child a terminal, so the question is really asked.
const hasScript = spawnSync('script', ['-qc', 'true', '/dev/null']).status === 0;

/** Runs svc on a pseudo-terminal, typing `answer`; resolves with its exit code and output. */
function onTerminal(env: Record<string, string>, args: string[], answer: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  // Asynchronously: the daemon answering it runs in this process.
  const childEnv: NodeJS.ProcessEnv = { ...cli.sandbox.env, ...env };
  delete childEnv.CI; // CI set means "nobody to ask", even on a terminal
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: childEnv, cwd: cli.sandbox.home });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stdin.end(answer);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe.skipIf(!hasScript)('svc automations delete on a terminal', () => {
  it('asks, naming the automation: "y" deletes it, anything else cancels with exit 2', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('Asked', '0 1 * * *');
    const env = envFor({ url: cli.daemon.url, key: t.key, team: t.slug });
    const no = await onTerminal(env, ['automations', 'delete', 'Asked'], 'n\n');
    expect(no.output).toContain(`Delete automation "Asked" (${a.id}) and its triggers? [y/N]`);
    expect(no.output).toContain('Cancelled');
    expect(no.code).toBe(2);
    expect(await t.automations()).toHaveLength(1);
    const yes = await onTerminal(env, ['automations', 'delete', 'Asked'], 'y\n');
    expect(yes.code, yes.output).toBe(0);
    expect(yes.output).toContain('Deleted automation "Asked"');
    expect(await t.automations()).toEqual([]);
  });
});

describe.skipIf(!hasScript)('svc automations create on a terminal', () => {
  it('asks for the name and the prompt the flags left out, as gh does, and creates the automation', async () => {
    const t = await newTeam();
    const args = ['automations', 'create', '--provider', 'github', '--event-type', 'pull_request.opened', '--filter', '$.data.pull_request.base.ref equals main'];
    const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const childEnv: NodeJS.ProcessEnv = { ...cli.sandbox.env, ...t.env };
    delete childEnv.CI;
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: childEnv, cwd: cli.sandbox.home });
    let output = '';
    const answers = [['Name: ', 'PR review\n'], ['Prompt (what the session is asked to do): ', 'Review the pull request\n']];
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      output += s;
      // each answer typed once its question shows, as a person would
      if (answers.length && output.includes(answers[0]![0]!)) child.stdin.write(answers.shift()![1]);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    const [created] = await t.automations();
    expect(created).toMatchObject({ name: 'PR review', prompt: 'Review the pull request', event_type: 'pull_request.opened' });
  });

  it('still refuses without a terminal, naming what is missing', async () => {
    const t = await newTeam();
    const r = await t.svc(['automations', 'create', '--event-type', 'pull_request.opened']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing --name, --prompt or --prompt-file');
  });
});

describe('start-up', () => {
  // The schema library is hundreds of modules: the CLI uses the API's constants without it. A
  // list shows filters and schedule times, which takes neither the filter parser (JSONPath,
  // regex) nor the cron parser. Node's own http module is the client's transport.
  it.each([['automations', 'list'], ['sessions', 'list'], ['connections', 'list'], ['env', 'list']])('svc %s %s loads no schema library, no parser and no HTTP library', async (...args) => {
    const t = await newTeam();
    await t.eventAutomation('Listed', { provider: 'generic', event_type: 'deploy', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] });
    const run = await modulesLoadedBy(cli.sandbox, t.env, args);
    expect(run.status, run.stderr).toBe(0);
    expect(run.modules.some((m) => m.includes('/dist/cli/commands/'))).toBe(true); // the trace works
    expect(packagesAmong(run.modules, ['typebox', 'ajv', 'cron-parser', 'json-p3', 're2js', 'undici'])).toEqual([]);
  });
});

describe('svc automations run / runs', () => {
  it('runs an automation now (paused too), prints the session, and lists it among the runs', async () => {
    const t = await newTeam();
    const a = await t.cronAutomation('Now', '0 1 * * *', { status: 'paused', prompt: 'do it' });
    const r = await t.svc(['automations', 'run', 'Now', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const session = r.json();
    expect(session).toMatchObject({ automation_id: a.id, prompt: 'do it' });
    expect(r.stderr).toContain(`Started session ${session.session_id}`);

    const runs = await t.svc(['automations', 'runs', a.id, '--json']);
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.json().map((s: any) => s.session_id)).toEqual([session.session_id]);
    const text = await t.svc(['automations', 'runs', 'now']);
    expect(text.stdout).toMatch(/^SESSION\s+STATUS\s+ORIGIN\s+CREATED\s+COMPLETED\s+ERROR\n/);
    expect(text.stdout).toContain(session.session_id);
    expect(text.stdout).toMatch(/\smanual\s/);
  });

  it('exits 4 for runs of an unknown automation', async () => {
    const t = await newTeam();
    expect((await t.svc(['automations', 'runs', '6f1c2a3b-0000-4000-8000-000000000000'])).code).toBe(4);
    expect((await t.svc(['automations', 'run', 'ghost'])).code).toBe(4);
  });
});

describe('svc help automations ...', () => {
  it('shows the options and the examples', async () => {
    const r = await runSvc(cli.sandbox, ['help', 'automations', 'create']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--prompt-file <path>');
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('$ svc automations create --name "Standup notes"');
  });
});
