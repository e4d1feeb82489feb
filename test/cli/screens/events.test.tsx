import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutomation, fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

let h: Harness;
let onDeploy: { id: string };
let prodOnly: { id: string };
beforeAll(async () => {
  h = await startHarness();
  onDeploy = await createAutomation(h.api, { name: 'Any deploy', prompt: 'Look at it', triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
  prodOnly = await createAutomation(h.api, {
    name: 'Prod deploy',
    prompt: 'Smoke test prod',
    triggers: [{ kind: 'event', event_type: 'deploy.finished', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] }],
  });
});
afterAll(async () => {
  await h.close();
});

async function openComposer() {
  const ui = h.open({ area: 'events' });
  await ui.waitFor('RECEIVED');
  await ui.press('n');
  await ui.waitFor('Events › Compose');
  await ui.waitFor('› Type');
  return ui;
}

describe('event composer', () => {
  it('validates the data as JSON while it is typed', async () => {
    const ui = await openComposer();
    expect(ui.frame()).toContain('✓ data is a JSON object');
    await ui.press(KEY.tab, KEY.tab, KEY.tab); // type, provider, id → data
    await ui.press(KEY.backspace);
    await ui.type('"env": ');
    let frame = await ui.waitFor('✗ data is not valid JSON');
    expect(fitsTerminal(frame)).toBe(true);
    await ui.type('"prod"}');
    await ui.waitFor('✓ data is a JSON object');
    ui.unmount();
  });

  it('dry-runs: which automation would match, and the condition that fails for the other', async () => {
    const ui = await openComposer();
    await ui.type('deploy.finished');
    await ui.press(KEY.tab, KEY.tab, KEY.tab);
    for (let i = 0; i < 2; i++) await ui.press(KEY.backspace);
    await ui.type('{"env": "staging"}');
    await ui.waitFor('✓ data is a JSON object');
    await ui.press(KEY.ctrlR);
    const frame = await ui.waitFor('Dry run:');
    const rows = frame.split('\n');
    expect(rows.find((l) => l.includes('Any deploy'))).toMatch(/✓ Any deploy/);
    expect(frame).toMatch(new RegExp(`would dispatch · key\\s+event:${onDeploy.id}:`));
    expect(rows.find((l) => l.includes('Prod deploy'))).toMatch(/✗ Prod deploy/);
    expect(frame).toContain('filter $.data.env equals "prod" was false (found "staging")');
    expect((await h.api('GET', '/teams/acme/events')).body.data).toHaveLength(0);
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('dry-runs a filter written without $.data: the row says the payload is under $.data and which path was meant', async () => {
    // Its own event type, so the other tests' dry runs and sends do not meet it.
    await createAutomation(h.api, {
      name: 'Top-level env',
      prompt: 'Check it',
      triggers: [{ kind: 'event', event_type: 'release.tagged', filters: [{ jsonPath: '$.env', operator: 'equals', value: 'prod' }] }],
    });
    const ui = await openComposer();
    await ui.type('release.tagged');
    await ui.press(KEY.tab, KEY.tab, KEY.tab);
    for (let i = 0; i < 2; i++) await ui.press(KEY.backspace);
    await ui.type('{"env": "prod"}');
    await ui.waitFor('✓ data is a JSON object');
    await ui.press(KEY.ctrlR);
    const frame = await ui.waitFor('Dry run:');
    expect(frame.split('\n').find((l) => l.includes('Top-level env'))).toMatch(/✗ Top-level env/);
    // The row's detail may wrap: read it as one text.
    expect(frame.replace(/\s+/g, ' ')).toContain("filter $.env found nothing; the event's payload is under $.data: did you mean $.data.env?");
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('sends: the automations dispatched with their idempotency keys; the list shows the event', async () => {
    const ui = await openComposer();
    await ui.type('deploy.finished');
    await ui.press(KEY.tab, KEY.tab);
    await ui.type('evt-42');
    await ui.press(KEY.tab);
    for (let i = 0; i < 2; i++) await ui.press(KEY.backspace);
    await ui.type('{"env": "prod"}');
    await ui.press(KEY.tab, KEY.tab); // Dry run → Send button
    await ui.waitFor('› [ Send ]');
    await ui.press(KEY.enter);
    expect(await ui.waitFor('Sent:')).toContain('dispatched to 2 automations');
    const frame = await ui.waitFor(`Any deploy            key event:${onDeploy.id}:evt-42`);
    expect(frame).toContain(`Prod deploy           key event:${prodOnly.id}:evt-42`);

    await ui.press(KEY.esc);
    await ui.waitFor(/deploy\.finished\s+generic\s+evt-42\s+2/);
    await ui.press(KEY.enter);
    const detail = await ui.waitFor('Dispatched');
    expect(detail).toContain(`key event:${prodOnly.id}:evt-42`);
    // pretty-printed, its nesting kept
    expect(detail).toMatch(/^ {2}\{\n {4}"env": "prod"\n {2}\}$/m);
    ui.unmount();
  });

  it('with a blank Id, the send uses the id its dry run showed; the next send is a new event', async () => {
    // (a long key wraps: read it with the line breaks and indents taken out)
    const keyIn = (frame: string) => new RegExp(`key:?event:${onDeploy.id}:([0-9a-f-]{36})`).exec(frame.replace(/\s+/g, ''))?.[1];
    const ui = await openComposer();
    await ui.type('deploy.finished');
    await ui.press(KEY.ctrlR);
    const dryId = keyIn(await ui.waitFor((frame) => frame.includes('Dry run:') && keyIn(frame) !== undefined));
    await ui.press(KEY.ctrlS);
    const sentId = keyIn(await ui.waitFor((frame) => frame.includes('Sent:') && keyIn(frame) !== undefined));
    expect(sentId).toBe(dryId);
    await ui.press(KEY.ctrlS);
    const nextId = keyIn(await ui.waitFor((frame) => frame.includes('Sent:') && keyIn(frame) !== dryId));
    expect(nextId).toMatch(/^[0-9a-f-]{36}$/);
    ui.unmount();
  });

  it('shows a daemon error as one line', async () => {
    const ui = await openComposer();
    await ui.type('x'.repeat(201));
    await ui.press(KEY.ctrlS);
    const frame = await ui.waitFor('✗ VALIDATION_ERROR');
    expect(frame.split('\n').filter((l) => l.includes('VALIDATION_ERROR'))).toHaveLength(1);
    ui.unmount();
  });
});

describe('events list', () => {
  it('at 60 columns cuts the type and the id alike, and fits', async () => {
    await h.api('POST', '/teams/acme/webhooks/events', { event_type: 'deployment.finished', id: 'delivery-0123456789' });
    const ui = h.open({ area: 'events', size: { columns: 60, rows: 24 } });
    const frame = await ui.waitFor('deployme');
    expect(frame).toMatch(/TYPE\s+PROVIDER\s+ID\s+DISPATCHED/);
    expect(frame).toMatch(/deployme\S*\s+generic\s+delivery/);
    expect(fitsTerminal(frame, 60)).toBe(true);
    ui.unmount();
  });
});
