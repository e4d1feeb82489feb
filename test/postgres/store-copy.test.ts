// `svc daemon copy` (CONTRACT §11): a data folder filled by a real daemon is copied to PostgreSQL
// and back into a new folder, and daemons on both copies answer every read as a daemon on the
// source does, with the same admin token and team key. Refusals: a target that is not empty
// (folder or database), a folder a running daemon holds, the same store twice.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../../daemon/config.js';
import { startDaemon } from '../../daemon/server.js';
import { ConnectionService } from '../../daemon/connections/service.js';
import { Sealer } from '../../daemon/secrets/sealer.js';
import { COPIED_TABLES, copyStore, CopyRefusedError, type CopyResult } from '../../daemon/store/copy.js';
import { openStore } from '../../daemon/store/index.js';
import { openPostgresStore } from '../../daemon/store/postgres/postgres-store.js';
import type { TableName } from '../../daemon/store/tables.js';
import { everyCase } from '../fixtures/skills/repos.js';
import { makeSandbox, runSvc, type CliSandbox } from '../helpers/cli.js';
import { requester, type Requester } from '../helpers/daemon.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';

const ADMIN_TOKEN = 'svc_admin_' + 'c0py'.repeat(12);
const MASTER_KEY = 'ab'.repeat(32);
const silent = { info() {}, warn() {}, error() {} };

let cluster: PostgresCluster;
let fake: FakeGitHub;
let sandbox: CliSandbox;
let root: string;
let databases = 0;

beforeAll(async () => {
  [cluster, fake, sandbox, root] = await Promise.all([startPostgresCluster(), FakeGitHub.start(), makeSandbox(), mkdtemp(join(tmpdir(), 'svc-copy-'))]);
  fake.addRepo('Acme/Skills', { files: everyCase() });
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
  await fake?.close();
  await sandbox?.cleanup();
  if (root) await rm(root, { recursive: true, force: true });
});

const newDatabase = () => cluster.createDatabase(`copy_${++databases}`);
let folders = 0;
const newFolder = () => join(root, `store-${++folders}`);

/** A daemon on `store` (a folder or a URL), all with the same admin token and master key. */
async function start(store: string): Promise<RunningDaemon> {
  const dataDir = store.startsWith('postgres') ? newFolder() : store;
  return startDaemon({
    port: 0,
    dataDir,
    store,
    logLevel: 'silent',
    rateLimit: 100_000,
    adminRateLimit: 100_000,
    adminToken: ADMIN_TOKEN,
    masterKey: MASTER_KEY,
    githubApiUrl: fake.apiUrl,
    githubRawUrl: fake.rawUrl,
    // webhook URLs the same on every daemon, whatever port it listens on
    publicUrl: 'https://svc.example.com',
  });
}

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

function ok<T = any>(res: { status: number; body: any }, status = 200): T {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body.data as T;
}

interface Populated {
  teamKey: string;
  projectKey: string;
  projectId: string;
}

/** Everything a team has, made through the API: every table gets rows, counters move. */
async function populate(d: RunningDaemon): Promise<Populated> {
  const admin = requester(d.url, ADMIN_TOKEN);
  ok(await admin('POST', '/admin/teams', { slug: 'acme', name: 'Acme' }), 201);
  ok(await admin('POST', '/admin/teams', { slug: 'beta', name: 'Beta' }), 201);
  ok(await admin('PATCH', '/admin/teams/beta', { execution_admitted: false }));
  const teamKey = ok(await admin('POST', '/admin/teams/acme/keys', { name: 'ci' }), 201).key as string;
  const revoked = ok(await admin('POST', '/admin/teams/acme/keys', { name: 'old' }), 201);
  ok(await admin('DELETE', `/admin/teams/acme/keys/${revoked.id}`));
  ok(await admin('POST', '/admin/teams/beta/keys', {}), 201);
  const project = ok(await admin('POST', '/admin/teams/acme/projects', { name: 'web', description: 'the site', availableTasks: ['build', 'deploy'] }), 201);
  const projectKey = ok(await admin('POST', `/admin/projects/${project.id}/key`), 201).key as string;
  const staging = ok(await admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging', project_id: project.id }), 201);

  const api = requester(d.url, teamKey);
  ok(await api('PUT', '/teams/acme/env-vars/API_TOKEN', { value: 's3cret', is_secret: true }));
  ok(await api('PUT', '/teams/acme/env-vars/REGION', { value: 'eu', is_secret: false, environment_slug: 'staging' }));

  const onDeploy = ok(await api('POST', '/teams/acme/automations', { name: 'on deploy', prompt: 'check {{event.data.env}}', event_type: 'deploy', environment_id: staging.id }), 201);
  ok(
    await api('POST', '/teams/acme/automations', {
      name: 'on push',
      prompt: 'review',
      triggers: [{ kind: 'event', event_type: 'push', filters: [{ jsonPath: '$.data.branch', operator: 'equals', value: 'main' }] }],
    }),
    201,
  );
  const soon = ok(
    await api('POST', '/teams/acme/automations', {
      name: 'soon',
      prompt: 'once',
      triggers: [
        { kind: 'schedule', one_off_at: new Date(Date.now() + 1500).toISOString() },
        { kind: 'schedule', cron_expression: '0 3 1 1 *', timezone: 'Europe/Berlin' },
      ],
    }),
    201,
  );
  const nightly = ok(await api('POST', '/teams/acme/automations', { name: 'nightly', prompt: 'sweep', triggers: [{ kind: 'schedule', cron_expression: '30 2 * * *' }], environment_id: staging.id }), 201);
  ok(await api('PATCH', `/teams/acme/automations/${nightly.id}`, { status: 'paused' }));

  for (let i = 1; i <= 5; i++) ok(await api('POST', '/teams/acme/webhooks/events', { id: `deploy-${i}`, event_type: 'deploy', data: { env: i % 2 ? 'prod' : 'dev' } }));
  ok(await api('POST', '/teams/acme/webhooks/events', { id: 'push-1', event_type: 'push', data: { branch: 'main' } }));
  ok(await api('POST', '/teams/acme/webhooks/events', { id: 'push-2', event_type: 'push', data: { branch: 'topic' } }));
  ok(await api('POST', '/teams/acme/webhooks/events', { id: 'nobody', event_type: 'unheard', data: {} }));
  ok(await api('POST', `/teams/acme/automations/${onDeploy.id}/runs`), 201);
  const chat = ok(await api('POST', '/teams/acme/sessions', { prompt: 'hello' }), 201);
  await until(async () => ok(await api('GET', `/teams/acme/sessions/${chat.session_id}`)).status === 'completed');
  ok(await api('POST', `/teams/acme/sessions/${chat.session_id}/messages`, { message: 'and again' }), 202);
  ok(await api('POST', '/teams/acme/skills/scan', { repository: 'https://github.com/acme/skills', ref: 'main' }));
  const github = ok(await api('POST', '/teams/acme/connections', { provider: 'github', name: 'GitHub', external_id: '99' }), 201);
  ok(await api('POST', `/teams/acme/connections/${github.id}/secret`, { previous: 'keep' }));
  ok(await api('POST', '/teams/acme/connections', { provider: 'standard', name: 'Hooks' }), 201);
  ok(await api('POST', '/teams/acme/events/deploy-1/replay'));

  // The one-off fires, and every session the record runner took is finished.
  await until(async () => ok(await api('GET', `/teams/acme/automations/${soon.id}`)).total_runs === 1);
  await until(async () => {
    const sessions = ok<any[]>(await api('GET', '/teams/acme/sessions?limit=200'));
    const last = ok(await api('GET', `/teams/acme/sessions/${chat.session_id}`));
    return sessions.every((s) => s.status === 'completed') && last.messages.length === 4;
  });
  return { teamKey, projectKey, projectId: project.id };
}

/** Every page of a list, following next_cursor. */
async function walk(api: Requester, path: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | undefined;
  do {
    const res = await api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    pages.push({ status: res.status, body: res.body });
    cursor = res.body?.next_cursor;
  } while (cursor);
  return pages;
}

/**
 * What every GET route answers, in an order that reads key lists (their last_used_at) before
 * any request with a team or project key.
 */
async function readEverything(d: RunningDaemon, p: Populated): Promise<Record<string, unknown>> {
  const admin = requester(d.url, ADMIN_TOKEN);
  const api = requester(d.url, p.teamKey);
  const project = requester(d.url, p.projectKey);
  const reads: Record<string, unknown> = {};
  const get = async (who: Requester, path: string) => {
    const res = await who('GET', path);
    reads[path] = { status: res.status, body: res.body };
    return res.body;
  };
  const health = await requester(d.url, null)('GET', '/health');
  reads['/health'] = { status: health.status, version: health.body.data.version };
  await get(admin, '/admin/teams');
  for (const slug of ['acme', 'beta']) await get(admin, `/admin/teams/${slug}/keys`);
  await get(api, '/teams/acme/environments');
  for (const path of ['/teams/acme/env-vars', '/teams/acme/env-vars?environment_slug=staging']) await get(api, path);
  const automations = (await get(api, '/teams/acme/automations?limit=200')).data as { id: string }[];
  for (const path of ['/teams/acme/automations', '/teams/acme/automations?status=paused', '/teams/acme/automations?type=schedule']) reads[`pages ${path}`] = await walk(api, path);
  for (const a of automations) {
    await get(api, `/teams/acme/automations/${a.id}`);
    reads[`pages runs ${a.id}`] = await walk(api, `/teams/acme/automations/${a.id}/runs`);
    reads[`pages sessions of ${a.id}`] = await walk(api, `/teams/acme/sessions?automation_id=${a.id}`);
  }
  const sessions = (await get(api, '/teams/acme/sessions?limit=200')).data as { session_id: string }[];
  reads['pages sessions'] = await walk(api, '/teams/acme/sessions');
  reads['pages completed sessions'] = await walk(api, '/teams/acme/sessions?status=completed');
  for (const s of sessions) await get(api, `/teams/acme/sessions/${s.session_id}`);
  await get(api, '/teams/acme/events?limit=200');
  const connections = (await get(api, '/teams/acme/connections?limit=200')).data as { id: string }[];
  reads['pages connections'] = await walk(api, '/teams/acme/connections');
  for (const c of connections) {
    await get(api, `/teams/acme/connections/${c.id}`);
    reads[`pages deliveries of ${c.id}`] = await walk(api, `/teams/acme/connections/${c.id}/deliveries`);
  }
  reads['pages events'] = await walk(api, '/teams/acme/events');
  await get(project, `/projects/${p.projectId}`);
  await get(project, `/projects/${p.projectId}/schedules`);
  return reads;
}

/** The rows of each table, counted in the store itself. */
async function countRows(store: string): Promise<Record<TableName, number>> {
  const s = store.startsWith('postgres') ? await openPostgresStore({ url: store, logger: silent }) : await openStore({ dataDir: store, logger: silent });
  try {
    return Object.fromEntries(await s.read((tx) => Promise.all(COPIED_TABLES.map(async (t) => [t, await tx.count(t)])))) as Record<TableName, number>;
  } finally {
    await s.close();
  }
}

/**
 * Deliveries as the delivery route records them (not through HTTP: signing them is the provider
 * routes' business), to the source's first connection, while no daemon holds the folder.
 */
async function recordDeliveries(folder: string): Promise<void> {
  const s = await openStore({ dataDir: folder, logger: silent });
  try {
    const connections = new ConnectionService(s, () => new Date(), new Sealer(MASTER_KEY));
    const [first] = await s.read((tx) => tx.list('connections'));
    const statuses = ['accepted', 'duplicate', 'rejected', 'accepted'] as const;
    for (const [i, status] of statuses.entries()) {
      await connections.recordDelivery(first, { delivery_id: `d-${i}`, event_type: 'push', status, reason: status, event_id: status === 'rejected' ? null : `d-${i}` });
    }
  } finally {
    await s.close();
  }
}

/** The folder's files with their sizes and modification times. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) {
    const st = await stat(join(dir, name));
    out[name] = `${st.size} ${st.mtimeMs}`;
  }
  return out;
}

describe('svc daemon copy', () => {
  let source: string;
  let populated: Populated;
  let expected: Record<string, unknown>;
  let sourceCounts: Record<TableName, number>;

  beforeAll(async () => {
    source = newFolder();
    const d = await start(source);
    try {
      populated = await populate(d);
    } finally {
      await d.close();
    }
    await recordDeliveries(source);
    sourceCounts = await countRows(source);
    const d2 = await start(source);
    try {
      expected = await readEverything(d2, populated);
    } finally {
      await d2.close();
    }
  }, 60_000);

  it('fills every table of the source, so the copy below copies each kind of row', () => {
    for (const table of COPIED_TABLES) expect(sourceCounts[table], table).toBeGreaterThan(0);
  });

  it('copies a data folder to PostgreSQL and back into a new folder; daemons on both copies answer every read as on the source', async () => {
    const database = await newDatabase();
    const toPg: CopyResult = await copyStore({ from: source, to: database, logger: silent });
    expect(toPg).toMatchObject({ from: { kind: 'file', store: source }, to: { kind: 'postgres' }, tables: sourceCounts, master_key_check: 'first_start' });
    expect(toPg.to.store).not.toContain('svc-test');
    expect(await countRows(database)).toEqual(sourceCounts);
    // The first daemon on the copy must bring the key its env var values are sealed with.
    await expect(startDaemon({ port: 0, dataDir: newFolder(), store: database, logLevel: 'silent', masterKey: 'cd'.repeat(32) })).rejects.toThrow(
      /does not open the env var values stored in the database/,
    );

    // PostgreSQL -> folder through the real CLI, as a user would run it.
    const back = newFolder();
    const cli = await runSvc(sandbox, ['daemon', 'copy', '--from', database, '--to', back, '--json'], { timeoutMs: 60_000 });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json()).toMatchObject({ from: { kind: 'postgres' }, to: { kind: 'file', store: back }, tables: sourceCounts, master_key_check: 'not_used' });
    expect(await countRows(back)).toEqual(sourceCounts);

    for (const store of [database, back]) {
      const d = await start(store);
      try {
        expect(await readEverything(d, populated), store).toEqual(expected);
        const api = requester(d.url, populated.teamKey);
        // The skill scan cache came along: the same commit is not downloaded again.
        const raw = fake.requestsOf('raw').length;
        ok(await api('POST', '/teams/acme/skills/scan', { repository: 'https://github.com/acme/skills', ref: 'main' }));
        expect(fake.requestsOf('raw').length).toBe(raw);
        // Rows written on the copy come after the copied ones: the newest is listed first.
        const added = ok(await api('POST', '/teams/acme/automations', { name: 'after the move', prompt: 'p', event_type: 'moved' }), 201);
        expect(ok<{ id: string }[]>(await api('GET', '/teams/acme/automations')).map((a) => a.id)[0]).toBe(added.id);
      } finally {
        await d.close();
      }
    }
  });

  it('copies PostgreSQL to PostgreSQL with the master key check value, and a folder to a folder', async () => {
    const first = await newDatabase();
    await copyStore({ from: source, to: first, logger: silent });
    const d = await start(first); // records the check value of MASTER_KEY
    await d.close();
    const second = await newDatabase();
    const result = await copyStore({ from: first, to: second, logger: silent });
    expect(result).toMatchObject({ tables: sourceCounts, master_key_check: 'copied' });
    const checks = await Promise.all([first, second].map(async (url) => (await cluster.query(new URL(url).pathname.slice(1), "SELECT value FROM svc_meta WHERE key = 'master_key_check'")).rows));
    expect(checks[1]).toEqual(checks[0]);
    expect(checks[0]).toHaveLength(1);

    const folder = newFolder();
    expect(await copyStore({ from: source, to: folder, logger: silent })).toMatchObject({ tables: sourceCounts, master_key_check: 'not_used' });
    for (const store of [second, folder]) {
      const copy = await start(store);
      try {
        expect(await readEverything(copy, populated), store).toEqual(expected);
      } finally {
        await copy.close();
      }
    }
    // A daemon with another key is refused by the copied check value, as on the source.
    await expect(startDaemon({ port: 0, dataDir: newFolder(), store: second, logLevel: 'silent', masterKey: 'cd'.repeat(32) })).rejects.toThrow(/master key/);
  });

  it('refuses a target that is not empty, a folder or a database, and changes nothing', async () => {
    const folder = newFolder();
    await copyStore({ from: source, to: folder, logger: silent });
    const sourceFiles = await filesOf(source);
    const refusal = await copyStore({ from: source, to: folder, logger: silent }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(CopyRefusedError);
    expect(refusal).toMatchObject({ reason: 'target-not-empty', message: expect.stringContaining('not empty') });
    expect(await countRows(folder)).toEqual(sourceCounts);

    const database = await newDatabase();
    await copyStore({ from: source, to: database, logger: silent });
    await expect(copyStore({ from: folder, to: database, logger: silent })).rejects.toMatchObject({ reason: 'target-not-empty' });
    expect(await countRows(database)).toEqual(sourceCounts);

    // A database a daemon has started on records its master key, which need not be the source's.
    const started = await newDatabase();
    await (await start(started)).close();
    await expect(copyStore({ from: source, to: started, logger: silent })).rejects.toMatchObject({ reason: 'target-not-empty', message: expect.stringMatching(/master key/) });

    // The CLI: exit 5, a message on stderr, nothing on stdout.
    const cli = await runSvc(sandbox, ['daemon', 'copy', '--from', source, '--to', database]);
    expect(cli.code).toBe(5);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toMatch(/is not empty .*Nothing was copied/);
    // The source was not opened for a copy that was refused: its files are as they were.
    expect(await filesOf(source)).toEqual(sourceFiles);
  });

  it('undoes a copy whose counts do not match, leaving the database empty (exit 1)', async () => {
    // A database that silently drops some inserted rows (a rule someone left on it): only counting finds out.
    const database = await newDatabase();
    await (await openPostgresStore({ url: database, logger: silent })).close();
    await cluster.query(new URL(database).pathname.slice(1), "CREATE RULE drop_answers AS ON INSERT TO messages WHERE NEW.role = 'assistant' DO INSTEAD NOTHING");
    const cli = await runSvc(sandbox, ['daemon', 'copy', '--from', source, '--to', database]);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stderr).toMatch(new RegExp(`undone.*messages: source ${sourceCounts.messages}, copied ${sourceCounts.messages}, target ${sourceCounts.messages / 2}`));
    expect(cli.stdout).toBe('');
    expect(Object.values(await countRows(database)).every((n) => n === 0)).toBe(true);
  });

  it('refuses a source folder a running daemon holds, and a target folder one holds', async () => {
    const d = await start(source);
    try {
      const target = newFolder();
      await expect(copyStore({ from: source, to: target, logger: silent })).rejects.toMatchObject({ reason: 'source-in-use', message: expect.stringContaining(`pid ${process.pid}`) });
      // Nothing was made at the target.
      await expect(readdir(target)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(copyStore({ from: newFolder(), to: source, logger: silent })).rejects.toMatchObject({ reason: 'source-missing' });
      const cli = await runSvc(sandbox, ['daemon', 'copy', '--from', source, '--to', target]);
      expect(cli.code).toBe(5);
      expect(cli.stderr).toMatch(/in use by a running svc daemon/);
    } finally {
      await d.close();
    }
    const empty = newFolder();
    const onEmpty = await start(empty);
    try {
      await expect(copyStore({ from: source, to: empty, logger: silent })).rejects.toMatchObject({ reason: 'target-in-use' });
    } finally {
      await onEmpty.close();
    }
  });

  it('refuses the same store as source and target, and a folder that holds no store (exit 2)', async () => {
    const same = await runSvc(sandbox, ['daemon', 'copy', '--from', source, '--to', `${source}/`]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/same store/);
    const missing = await runSvc(sandbox, ['daemon', 'copy', '--from', join(root, 'nowhere'), '--to', newFolder()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not exist/);
  });
});
