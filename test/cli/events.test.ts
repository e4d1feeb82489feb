// `svc events send` and `svc events list`, run as the real bin/svc.js against a real daemon.
// Each test gets its own team, so automations of one never match another's events.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc } from '../helpers/cli.js';
import { useCliTeams } from '../helpers/cli-teams.js';
import { modulesLoadedBy, packagesAmong } from '../helpers/module-trace.js';

const cli = useCliTeams('events');

async function newTeam() {
  const t = await cli.newTeam();
  const sessionsOf = async (id: string) => (await t.api('GET', `/teams/${t.slug}/sessions?automation_id=${id}`)).body.data as any[];
  return { ...t, automation: t.eventAutomation, sessionsOf };
}

describe('svc events send', () => {
  it('dispatches a matching automation and prints it with its idempotency key', async () => {
    const t = await newTeam();
    const a = await t.automation('Deploy bot', { event_type: 'deploy.finished', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] });
    const r = await t.svc(['events', 'send', '--type', 'deploy.finished', '--id', 'evt-1', '--data', '{"env":"prod"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `AUTOMATION                            IDEMPOTENCY KEY\n${a.id}  event:${a.id}:evt-1\n`,
    );
    expect(r.stderr).toContain('Event evt-1: dispatched to 1 automation.');
    expect(await t.sessionsOf(a.id)).toHaveLength(1);
  });

  it('--json prints only the result; a resent id starts nothing new and lists the same key', async () => {
    const t = await newTeam();
    const a = await t.automation('Once', { event_type: 'ping' });
    const first = await t.svc(['events', 'send', '--type', 'ping', '--id', 'same', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toEqual({ accepted: true, dispatched: [{ automationId: a.id, idempotencyKey: `event:${a.id}:same`, triggerIds: [a.triggers[0].id] }], reason: 'dispatched to 1 automation' });
    const again = await t.svc(['events', 'send', '--type', 'ping', '--id', 'same', '--json']);
    expect(again.json().dispatched).toEqual(first.json().dispatched);
    expect(await t.sessionsOf(a.id)).toHaveLength(1);
  });

  it('gives each event an id of its own when --id is absent', async () => {
    const t = await newTeam();
    const a = await t.automation('Each', { event_type: 'ping' });
    const keys = [];
    for (let i = 0; i < 2; i++) keys.push((await t.svc(['events', 'send', '--type', 'ping', '--json'])).json().dispatched[0].idempotencyKey);
    expect(keys[0]).toMatch(new RegExp(`^event:${a.id}:[0-9a-f-]{36}$`));
    expect(keys[1]).not.toBe(keys[0]);
    expect(await t.sessionsOf(a.id)).toHaveLength(2);
  });

  it('sends provider, connection, source, subject, metadata and data as given', async () => {
    const t = await newTeam();
    const a = await t.automation('Bound', {
      provider: 'github',
      event_type: 'push',
      connection_id: 'conn-7',
      filters: [{ jsonPath: '$.metadata.branch', operator: 'equals', value: 'main' }, { jsonPath: '$.subject', operator: 'starts_with', value: 'repo/' }],
    });
    const miss = await t.svc(['events', 'send', '--type', 'push', '--provider', 'github', '--subject', 'repo/x', '--metadata', '{"branch":"main"}', '--json']);
    expect(miss.json().accepted).toBe(false);
    const hit = await t.svc([
      'events', 'send', '--type', 'push', '--provider', 'github', '--connection', 'conn-7', '--source', 'https://ci.example/1',
      '--subject', 'repo/x', '--metadata', '{"branch":"main"}', '--data', '{"n":1}', '--id', 'push-1', '--json',
    ]);
    expect(hit.code, hit.stderr).toBe(0);
    expect(hit.json().accepted).toBe(true);
    const [session] = await t.sessionsOf(a.id);
    expect(session.event).toMatchObject({
      id: 'push-1', provider: 'github', event_type: 'push', connection_id: 'conn-7', source: 'https://ci.example/1',
      subject: 'repo/x', metadata: { branch: 'main' }, data: { n: 1 },
    });
  });

  it('reads --data from @FILE and from stdin (-), and --metadata from @FILE', async () => {
    const t = await newTeam();
    const a = await t.automation('Files', { event_type: 'build', filters: [{ jsonPath: '$.data.ok', operator: 'equals', value: 'false' }, { jsonPath: '$.metadata.run', operator: 'gt', value: '10' }] });
    const data = join(cli.sandbox.home, `${t.slug}-data.json`);
    const meta = join(cli.sandbox.home, `${t.slug}-meta.json`);
    await writeFile(data, '{"ok": false}\n');
    await writeFile(meta, '{"run": 42}');
    const fromFile = await t.svc(['events', 'send', '--type', 'build', '--data', `@${data}`, '--metadata', `@${meta}`, '--json']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.json().accepted).toBe(true);
    const fromStdin = await t.svc(['events', 'send', '--type', 'build', '--data', '-', '--metadata', `@${meta}`, '--json'], { input: '{"ok": false}' });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.json().accepted).toBe(true);
    expect(await t.sessionsOf(a.id)).toHaveLength(2);
  });

  it('refuses a number JSON cannot carry (1e400) rather than send it as null: exit 5, nothing sent', async () => {
    const t = await newTeam();
    for (const args of [['--data', '{"a":1e400}'], ['--metadata', '{"m":-1e999}']]) {
      const r = await t.svc(['events', 'send', '--type', 'inf', '--id', 'inf-1', ...args]);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/has a number beyond what a JSON number can hold here .*: it reads as Infinity, which JSON would send as null/);
    }
    const listed = await t.svc(['events', 'list', '--json']);
    expect(listed.json()).toEqual([]);
  });

  it('prints the reason when nothing was dispatched, and exits 0', async () => {
    const t = await newTeam();
    await t.automation('Prod only', { event_type: 'deploy', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] });
    const r = await t.svc(['events', 'send', '--type', 'deploy', '--data', '{"env":"staging"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Nothing dispatched: no automation matched provider "generic" event "deploy": trigger of "Prod only": filter $.data.env equals "prod" was false (found "staging")\n');
  });

  it('--require-dispatch exits 9 when nothing was dispatched, with the reason on stderr and the JSON on stdout', async () => {
    const t = await newTeam();
    const r = await t.svc(['events', 'send', '--type', 'nobody.listens', '--require-dispatch', '--json']);
    expect(r.code).toBe(9);
    expect(r.json()).toMatchObject({ accepted: false, dispatched: [] });
    expect(r.stderr).toContain('no automation was dispatched (--require-dispatch): no active automation listens to');
    await t.automation('Listener', { event_type: 'nobody.listens' });
    const ok = await t.svc(['events', 'send', '--type', 'nobody.listens', '--require-dispatch']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('--dry-run shows per automation whether it matched or which condition failed, and starts nothing', async () => {
    const t = await newTeam();
    const yes = await t.automation('Matches', { event_type: 'deploy' });
    const no = await t.automation('Filtered', { event_type: 'deploy', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] });
    const r = await t.svc(['events', 'send', '--type', 'deploy', '--id', 'dry-1', '--data', '{"env":"dev"}', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = r.json();
    expect(result.accepted).toBe(true);
    expect(result.dispatched).toEqual([{ automationId: yes.id, idempotencyKey: `event:${yes.id}:dry-1`, triggerIds: [yes.triggers[0].id] }]);
    expect(result.matches).toEqual(
      expect.arrayContaining([
        { id: yes.id, automationId: yes.id, name: 'Matches', matched: true, failed: null },
        { id: no.id, automationId: no.id, name: 'Filtered', matched: false, failed: expect.stringContaining('$.data.env equals "prod" was false (found "dev")') },
      ]),
    );
    expect(await t.sessionsOf(yes.id)).toEqual([]);

    const text = await t.svc(['events', 'send', '--type', 'deploy', '--id', 'dry-1', '--data', '{"env":"dev"}', '--dry-run']);
    expect(text.stdout).toMatch(/^NAME\s+AUTOMATION\s+RESULT\s+DETAIL$/m);
    expect(text.stdout).toMatch(new RegExp(`^Matches\\s+${yes.id}\\s+would dispatch\\s+event:${yes.id}:dry-1$`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^Filtered\\s+${no.id}\\s+no match\\s+.*found "dev"`, 'm'));
    // stdout is the table alone; the sentence is on stderr.
    expect(text.stdout).not.toContain('Dry run');
    expect(text.stderr).toMatch(/Dry run: would dispatch to 1 automation.*; nothing was started\./);
    expect(await t.sessionsOf(yes.id)).toEqual([]);
  });

  it('--dry-run with --require-dispatch exits 9 when nothing would be dispatched', async () => {
    const t = await newTeam();
    await t.automation('GitHub only', { provider: 'github', event_type: 'push' });
    const r = await t.svc(['events', 'send', '--type', 'push', '--dry-run', '--require-dispatch']);
    expect(r.code).toBe(9);
    expect(r.stdout).toMatch(/^GitHub only\s+\S+\s+no match\s+.*provider "github", not "generic"/m);
    expect(r.stderr).toContain('no automation would be dispatched');
  });

  it('exits 8 when the team is not admitted and an automation matches', async () => {
    const t = await newTeam();
    await t.automation('Blocked', { event_type: 'go' });
    expect((await cli.daemon.admin('PATCH', `/admin/teams/${t.slug}`, { execution_admitted: false })).status).toBe(200);
    const r = await t.svc(['events', 'send', '--type', 'go']);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('EXECUTION_DENIED, HTTP 402');
  });

  it('exits 3 on a refused key', async () => {
    const t = await newTeam();
    const r = await t.svc(['events', 'send', '--type', 'x'], { env: { SVC_API_KEY: 'svc_team_notARealKey0000000000000000000000000' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('UNAUTHORIZED');
  });

  it('exits 4 for a team the key does not belong to', async () => {
    const t = await newTeam();
    const r = await t.svc(['events', 'send', '--type', 'x'], { env: { SVC_TEAM: 'someone-else' } });
    expect(r.code).toBe(4);
  });

  // A payload the daemon would refuse is exit 5, as its 400 would be; how the command is called, 2.
  describe('refuses bad payloads before any request', () => {
    const nowhere = { SVC_BASE_URL: 'http://127.0.0.1:9/api/v1', SVC_API_KEY: 'svc_team_x', SVC_TEAM: 't' };
    const cases: [string, string[], RegExp, number, string?][] = [
      ['invalid JSON', ['--data', '{env: prod}'], /--data is not valid JSON/, 5],
      ['a JSON array', ['--data', '[1,2]'], /--data must be a JSON object, got an array/, 5],
      ['a file path without @', ['--data', 'payload.json'], /write --data @payload\.json/, 5],
      ['a missing @FILE', ['--metadata', '@/no/such/file.json'], /cannot read --metadata file '\/no\/such\/file\.json': no such file/, 2],
      ['empty stdin', ['--data', '-'], /--data \(stdin\) is empty/, 5, ''],
      ['both reading stdin', ['--data', '-', '--metadata', '-'], /cannot both read stdin/, 2],
      ['no --type', [], /required option '--type <type>' not specified/, 2],
      ['an unknown flag', ['--type', 'x', '--colour', 'red'], /unknown option '--colour'/, 2],
      ['an empty --id (an unset variable)', ['--id', ''], /--id must not be empty \(an unset variable\?\)/, 5],
      ['an empty --provider', ['--provider', ''], /--provider must not be empty/, 5],
      ['an empty --connection', ['--connection', ''], /--connection must not be empty/, 5],
    ];
    for (const [what, args, message, code, input] of cases) {
      it(`refuses ${what}`, async () => {
        const withType = args.includes('--type') || what === 'no --type' ? args : ['--type', 'x', ...args];
        const r = await runSvc(cli.sandbox, ['events', 'send', ...withType], { env: nowhere, input });
        expect(r.code, r.stderr).toBe(code);
        expect(r.stderr).toMatch(message);
        expect(r.stdout).toBe('');
      });
    }
  });

  it('loads no YAML, filter engine, cron parser, React, keychain, conf or HTTP library when SVC_API_KEY is set', async () => {
    const t = await newTeam();
    const run = await modulesLoadedBy(cli.sandbox, t.env, ['events', 'send', '--type', 'x', '--data', '{"a":1}']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.modules.some((m) => m.endsWith('/dist/cli/commands/events/send.js'))).toBe(true); // the trace works
    expect(packagesAmong(run.modules, ['yaml', 'json-p3', 'safe-regex2', 're2js', 'cron-parser', 'luxon', 'react', 'ink', '@napi-rs', 'conf', 'ajv', 'typebox', 'undici'])).toEqual([]);
  });
});

describe('svc events list', () => {
  it('lists received events newest first with what each dispatched; --type and --limit narrow it', async () => {
    const t = await newTeam();
    const a = await t.automation('Listener', { event_type: 'deploy' });
    await t.svc(['events', 'send', '--type', 'deploy', '--id', 'd1']);
    await t.svc(['events', 'send', '--type', 'other', '--id', 'o1']);
    await t.svc(['events', 'send', '--type', 'deploy', '--id', 'd2']);

    const all = await t.svc(['events', 'list', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.json().map((e: any) => e.id)).toEqual(['d2', 'o1', 'd1']);
    expect(all.json()[0]).toMatchObject({ event_type: 'deploy', provider: 'generic', accepted: true, dispatched: [{ automationId: a.id, idempotencyKey: `event:${a.id}:d2` }] });

    expect((await t.svc(['events', 'list', '--type', 'deploy', '--json'])).json().map((e: any) => e.id)).toEqual(['d2', 'd1']);
    const page = await t.svc(['events', 'list', '--limit', '1', '--json']);
    expect(page.json().map((e: any) => e.id)).toEqual(['d2']);
    expect(page.stderr).toContain('pass --all');
    expect((await t.svc(['events', 'list', '--limit', '1', '--all', '--json'])).json()).toHaveLength(3);

    const text = await t.svc(['events', 'list']);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RECEIVED\s+ID\s+EVENT\s+DISPATCHED\s+REASON$/);
    expect(lines[1]).toMatch(/^\S+Z\s+d2\s+generic\/deploy\s+1\s+dispatched to 1 automation$/);
    expect(lines[2]).toMatch(/^\S+Z\s+o1\s+generic\/other\s+0\s+no active automation listens to/);
  });

  it('prints what senders put in an event inert: no escape sequence, carriage return or bidi override reaches the terminal', async () => {
    const t = await newTeam();
    const hostile = 'evil\u001b]0;PWN\u0007\u001b[2J\rover\u202egnp';
    await t.api('POST', `/teams/${t.slug}/webhooks/events`, { event_type: hostile, id: 'id\u001b[5m', provider: 'p\u001b[31m' });
    for (const args of [['events', 'list'], ['events', 'list', '--no-color']]) {
      const text = await t.svc(args);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      expect(text.stdout).toContain('evil\\x1b]0;PWN\\x07\\x1b[2J\\x0dover\\u202egnp');
    }
    // --json is JSON: the values as sent, escaped by JSON itself.
    expect((await t.svc(['events', 'list', '--json'])).json()[0]).toMatchObject({ event_type: hostile, id: 'id\u001b[5m' });
  });

  it('says so when there are none', async () => {
    const t = await newTeam();
    const r = await t.svc(['events', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No events.');
  });
});
