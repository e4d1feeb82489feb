import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('home screen', () => {
  it('shows the five areas with the profile, daemon URL and team, and the daemon version once it answers', async () => {
    const ui = h.open();
    const frame = await ui.waitFor('● connected');
    for (const area of ['Automations', 'Events', 'Skills', 'Env vars', 'Sessions']) expect(frame).toContain(area);
    expect(frame).toContain('profile test');
    expect(frame).toContain('team acme');
    expect(frame).toContain(h.daemon.url);
    await ui.waitFor(/svc \d+\.\d+\.\d+ · ok/);
    await ui.waitFor('Key      works for team acme');
    ui.unmount();
  });

  it('says on Home when the key is refused, though the daemon answers', async () => {
    const { createClient } = await import('../../../shared/client.js');
    const client = createClient({ baseUrl: h.daemon.url, token: 'svc_team_refused0000000000000000000000000000', backoffMs: 20 });
    const ui = h.open({ client });
    const frame = await ui.waitFor('Key      UNAUTHORIZED');
    expect(frame).toContain('run `svc login` to store a working key');
    // The daemon's health is a request of its own, answered in either order with the key's check.
    await ui.waitFor(/svc \d+\.\d+\.\d+ · ok/);
    ui.unmount();
  });

  it('moves with arrows and j/k, opens an area with enter and comes back with esc', async () => {
    const ui = h.open();
    await ui.waitFor('› 1 Automations');
    await ui.press(KEY.down);
    await ui.waitFor('› 2 Events');
    await ui.press('j', 'j');
    await ui.waitFor('› 4 Env vars');
    await ui.press('k');
    await ui.waitFor('› 3 Skills');
    await ui.press(KEY.enter);
    await ui.waitFor('Repository');
    await ui.press(KEY.esc);
    const back = await ui.waitFor('› 3 Skills');
    expect(back).toContain('Home');
    ui.unmount();
  });

  it('opens an area by its number', async () => {
    const ui = h.open();
    await ui.waitFor('Home');
    await ui.press('5');
    await ui.waitFor(/Sessions\s+\S/);
    expect(ui.frame()).toContain('STATUS');
    ui.unmount();
  });

  it('shows help with ? and closes it with any key', async () => {
    const ui = h.open();
    await ui.waitFor('Home');
    await ui.press('?');
    const help = await ui.waitFor('This screen');
    expect(help).toContain('Everywhere');
    expect(help).toContain('esc');
    expect(help).toContain('any key: close help');
    await ui.press('x');
    await ui.waitFor((f) => !f.includes('This screen') && f.includes('› 1 Automations'));
    ui.unmount();
  });

  it('quits with q', async () => {
    const ui = h.open();
    await ui.waitFor('Home');
    await ui.press('q');
    expect(ui.exited()).toBe(true);
    ui.unmount();
  });

  it('fits 80x24 with no colour codes when colour is off', async () => {
    const ui = h.open();
    await ui.waitFor('● connected');
    for (const f of ui.frames()) {
      expect(fitsTerminal(f)).toBe(true);
      // eslint-disable-next-line no-control-regex
      expect(f).not.toMatch(/\u001b\[(3[0-9]|9[0-7]|38;)/);
    }
    ui.unmount();
  });
});

describe('keys that arrive together', () => {
  it('moves once per letter of a chunk such as "jjj" from a held key, and acts on each key in order', async () => {
    const ui = h.open();
    await ui.waitFor('› 1 Automations');
    await ui.type('jjj');
    await ui.waitFor('› 4 Env vars');
    await ui.type('k\r');
    await ui.waitFor('Repository');
    ui.unmount();
  });
});

describe('a terminal smaller than the screens lay out in', () => {
  it('shows how to go on instead of overlapping lines, and acts on no key but q', async () => {
    const small = h.open({ area: 'automations', size: { columns: 80, rows: 15 } });
    const frame = await small.waitFor('the screens need at least 60x20');
    expect(frame).toContain('The terminal is 80x15');
    await small.press('n'); // would open the new-automation form
    expect(small.frame()).toContain('the screens need at least 60x20');
    small.unmount();
  });
});
