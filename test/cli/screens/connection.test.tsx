import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../shared/client.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { createAutomation, KEY, renderScreens } from './harness.js';

const daemons: TestDaemon[] = [];
afterAll(async () => {
  for (const d of daemons) await d.destroy().catch(() => undefined);
});

describe('notes from outside the screens', () => {
  it('shows a rate-limit wait on the message line, not on stderr', async () => {
    const d = await startTestDaemon();
    daemons.push(d);
    const { key } = await createTeam(d, 'acme');
    let tell: (text: string) => void = () => undefined;
    const client = createClient({ baseUrl: d.url, token: key });
    const ui = renderScreens({
      client, team: 'acme', profile: 'test', url: client.baseUrl, color: false, size: { columns: 80, rows: 24 },
      notices: { subscribe: (listener) => ((tell = listener), () => undefined) },
    });
    await ui.waitFor('● connected');
    tell('Rate limited: waiting 12 s before retrying');
    await ui.waitFor('Rate limited: waiting 12 s before retrying');
    ui.unmount();
  });

  it("shows over a screen's own message while the wait lasts (a form's error or its 'Creating…'), then goes", async () => {
    const d = await startTestDaemon();
    daemons.push(d);
    const { key } = await createTeam(d, 'acme');
    let tell: (text: string, forMs?: number) => void = () => undefined;
    const client = createClient({ baseUrl: d.url, token: key });
    const ui = renderScreens({
      client, team: 'acme', profile: 'test', url: client.baseUrl, color: false, size: { columns: 80, rows: 24 }, area: 'automations',
      notices: { subscribe: (listener) => ((tell = listener), () => undefined) },
    });
    await ui.waitFor('● connected');
    await ui.press('n');
    await ui.waitFor('Automations › New');
    await ui.press(KEY.ctrlS);
    const refused = await ui.waitFor((f) => /^✗ /m.test(f));
    const error = /^✗ .*$/m.exec(refused)![0];
    tell('Rate limited: waiting 1 s before retrying', 400);
    const waiting = await ui.waitFor('Rate limited: waiting 1 s before retrying');
    expect(waiting).not.toContain(error);
    await ui.waitFor((f) => f.includes(error) && !f.includes('Rate limited'));
    ui.unmount();
  });
});

describe('a lost connection', () => {
  it('says so inside the screen, keeps what it showed, and recovers when the daemon is back', async () => {
    const first = await startTestDaemon();
    daemons.push(first);
    const { key, api } = await createTeam(first, 'acme');
    await createAutomation(api, { name: 'Survivor', prompt: 'x', triggers: [{ kind: 'event', event_type: 'e' }] });
    const client = createClient({ baseUrl: first.url, token: key, backoffMs: 20 });
    const ui = renderScreens({ client, team: 'acme', profile: 'test', url: client.baseUrl, color: false, size: { columns: 80, rows: 24 }, refreshMs: 300, area: 'automations' });
    await ui.waitFor('Survivor');
    await ui.waitFor('● connected');

    await first.close();
    const lost = await ui.waitFor('✗ connection lost · retrying');
    await ui.waitFor(/✗ Connection lost: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(lost).toContain('Survivor');
    expect(lost).not.toMatch(/\n\s+at /);

    const again = await startTestDaemon({ dataDir: first.dataDir, port: first.port });
    daemons.push(again);
    const back = await ui.waitFor((f) => f.includes('● connected') && !f.includes('Connection lost'), 15_000);
    expect(back).toContain('Survivor');
    ui.unmount();
  });
});

describe('a refused key', () => {
  it('shows in the header, from the home screen on, and when a key is revoked while the screens are open', async () => {
    const d = await startTestDaemon();
    daemons.push(d);
    await createTeam(d, 'acme');
    const wrong = createClient({ baseUrl: d.url, token: `svc_team_${'A'.repeat(40)}`, backoffMs: 20 });
    const home = renderScreens({ client: wrong, team: 'acme', profile: 'test', url: wrong.baseUrl, color: false, size: { columns: 80, rows: 24 } });
    // /health answers whatever the key; the header still says the key is refused
    const refused = await home.waitFor('✗ key refused');
    expect(refused).not.toContain('● connected');
    home.unmount();

    const spare = (await d.admin('POST', '/admin/teams/acme/keys', {})).body.data as { id: string; key: string };
    const client = createClient({ baseUrl: d.url, token: spare.key, backoffMs: 20 });
    const ui = renderScreens({ client, team: 'acme', profile: 'test', url: client.baseUrl, color: false, size: { columns: 80, rows: 24 }, refreshMs: 300, area: 'automations' });
    await ui.waitFor('● connected');
    expect((await d.admin('DELETE', `/admin/teams/acme/keys/${spare.id}`)).status).toBeLessThan(300);
    await ui.waitFor('✗ key refused');
    ui.unmount();
  });
});
