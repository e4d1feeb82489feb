import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

let h: Harness;
let staging: string;
beforeAll(async () => {
  h = await startHarness();
  const env = await h.daemon.admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging' });
  staging = env.body.data.id;
  await h.api('PUT', '/teams/acme/env-vars/LOG_LEVEL', { value: 'debug', is_secret: false });
  await h.api('PUT', `/teams/acme/env-vars/LOG_LEVEL?environment_id=${staging}`, { value: 'info', is_secret: false });
});
afterAll(async () => {
  await h.close();
});

const SECRET = 'hunter2-never-on-screen';

describe('env vars screen', () => {
  it('lists the variables of every environment with secret or not', async () => {
    const ui = h.open({ area: 'env-vars' });
    const frame = await ui.waitFor('2 variables');
    expect(frame).toMatch(/NAME\s+SECRET\s+VALUE\s+ENVIRONMENT/);
    expect(frame).toMatch(/LOG_LEVEL\s+plain\s+set\s+default/);
    expect(frame).toMatch(/LOG_LEVEL\s+plain\s+set\s+staging/);
    await ui.press('e');
    await ui.waitFor('environment default');
    await ui.press('e');
    const only = await ui.waitFor('environment staging');
    expect(only).toMatch(/1 variable /);
    expect(only).not.toMatch(/LOG_LEVEL\s+plain\s+set\s+default/);
    await ui.press('e');
    await ui.waitFor('all environments');
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('refuses an empty value, as `svc env set` does, rather than blank the variable', async () => {
    const ui = h.open({ area: 'env-vars' });
    await ui.waitFor(/LOG_LEVEL\s+plain\s+set\s+default/);
    await ui.select(/LOG_LEVEL\s+plain\s+set\s+default/);
    await ui.press(KEY.enter);
    await ui.waitFor('› Value');
    await ui.press(KEY.enter);
    await ui.waitFor('✗ No value entered: nothing was changed');
    expect(ui.frame()).toContain('Env vars › Set LOG_LEVEL');
    const vars = (await h.api('GET', '/teams/acme/env-vars')).body.data as { name: string; has_value: boolean }[];
    expect(vars.find((v) => v.name === 'LOG_LEVEL')?.has_value).toBe(true);
    ui.unmount();
  });

  it('sets a secret in a chosen environment through a masked field; the value never appears on screen', async () => {
    const ui = h.open({ area: 'env-vars' });
    await ui.waitFor('2 variables');
    await ui.press('n');
    await ui.waitFor('› Name');
    await ui.type('API_TOKEN');
    await ui.press(KEY.tab);
    await ui.waitFor('› Environment');
    await ui.press(KEY.right); // default → staging
    await ui.waitFor('(•) staging');
    await ui.press(KEY.tab, KEY.tab); // secret stays yes → value
    await ui.type(SECRET);
    const typed = await ui.waitFor('•'.repeat(SECRET.length));
    expect(typed).not.toContain(SECRET);
    await ui.press(KEY.enter);
    await ui.waitFor('✓ Set API_TOKEN in staging (secret)');
    await ui.waitFor(/API_TOKEN\s+secret\s+set\s+staging/);
    for (const f of ui.frames()) expect(f).not.toContain(SECRET);

    const vars = (await h.api('GET', `/teams/acme/env-vars?environment_id=${staging}`)).body.data as { name: string; is_secret: boolean }[];
    expect(vars.find((v) => v.name === 'API_TOKEN')?.is_secret).toBe(true);
    ui.unmount();
  });

  it('replaces the value of the selected variable with enter', async () => {
    const ui = h.open({ area: 'env-vars' });
    await ui.waitFor(/LOG_LEVEL\s+plain\s+set\s+default/);
    await ui.select(/LOG_LEVEL\s+plain\s+set\s+default/);
    await ui.press(KEY.enter);
    const form = await ui.waitFor('› Value');
    expect(form).toContain('Env vars › Set LOG_LEVEL');
    expect(form).toContain('(•) default');
    expect(form).toContain('(•) no');
    await ui.type('warn');
    await ui.press(KEY.enter);
    await ui.waitFor('✓ Set LOG_LEVEL in default (plain)');
    for (const f of ui.frames()) expect(f).not.toContain('warn');
    ui.unmount();
  });

  it('unsets only after y', async () => {
    const ui = h.open({ area: 'env-vars' });
    await ui.waitFor(/LOG_LEVEL\s+plain\s+set\s+staging/);
    await ui.select(/LOG_LEVEL\s+plain\s+set\s+staging/);
    await ui.press('d');
    await ui.waitFor('? Unset LOG_LEVEL in staging? Automations there lose it (y/N)');
    await ui.press(KEY.esc);
    await ui.waitFor((f) => !f.includes('(y/N)'));
    expect(ui.frame()).toContain('Env vars');
    await ui.press('d');
    await ui.waitFor('(y/N)');
    await ui.press('y');
    await ui.waitFor('✓ Unset LOG_LEVEL in staging');
    await ui.waitFor((f) => !/LOG_LEVEL\s+plain\s+set\s+staging/.test(f));
    const vars = (await h.api('GET', `/teams/acme/env-vars?environment_id=${staging}`)).body.data as { name: string }[];
    expect(vars.map((v) => v.name)).not.toContain('LOG_LEVEL');
    ui.unmount();
  });

  it('refuses a bad name before sending anything', async () => {
    const ui = h.open({ area: 'env-vars' });
    await ui.waitFor('Env vars');
    await ui.press('n');
    await ui.waitFor('› Name');
    await ui.type('1BAD-NAME');
    await ui.press(KEY.ctrlS);
    await ui.waitFor('✗ Name must start with a letter or _');
    ui.unmount();
  });
});
