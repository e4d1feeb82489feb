// The screens' pure parts: key splitting, text editing, filter lines, schedule previews, drafts.
import { type Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { draftToBody, type Draft } from '../../../cli/screens/automations/form.js';
import { failedCondition, parseEventData } from '../../../cli/screens/events/composer.js';
import { parseFilterLines } from '../../../cli/screens/filter-lines.js';
import stringWidth from 'string-width';
import { automationsRefreshMs } from '../../../cli/screens/api.js';
import { cell, oneLine, plural, truncate, truncateIndented, wrap } from '../../../cli/screens/format.js';
import { splitKeys } from '../../../cli/screens/keys.js';
import { previewSchedule } from '../../../cli/screens/schedule.js';
import { windowStart } from '../../../cli/screens/table.js';
import { applyKey, editState } from '../../../cli/screens/text-edit.js';

const key = (over: Partial<Key> = {}): Key => ({ ...splitKeys('a', {} as Key)[0][1], ...over }) as Key;
const plain = splitKeys('x\t', key())[0][1];

describe('splitting a chunk of keys', () => {
  it('keeps a single key or plain text as it came', () => {
    const k = key({ tab: true });
    expect(splitKeys('\t', k)).toEqual([['\t', k]]);
    expect(splitKeys('hello', k)).toEqual([['hello', k]]);
  });

  it('splits text, tabs, Enter, Backspace and ctrl keys into the keys a person pressed', () => {
    const keys = splitKeys('ab\t\tc\r\u007f\u0013', plain);
    expect(keys.map(([input, k]) => [input, k.tab, k.return, k.delete, k.ctrl])).toEqual([
      ['ab', false, false, false, false],
      ['', true, false, false, false],
      ['', true, false, false, false],
      ['c', false, false, false, false],
      ['', false, true, false, false],
      ['', false, false, true, false],
      ['s', false, false, false, true],
    ]);
  });
});

describe('editing a field', () => {
  it('inserts at the cursor, moves with arrows and deletes backwards', () => {
    let s = editState('helo');
    s = applyKey(s, '', key({ leftArrow: true })).state;
    s = applyKey(s, 'l', plain).state;
    expect(s).toEqual({ value: 'hello', cursor: 4 });
    s = applyKey(s, '', key({ delete: true })).state;
    expect(s).toEqual({ value: 'helo', cursor: 3 });
    s = applyKey(s, 'a', key({ ctrl: true })).state;
    expect(s.cursor).toBe(0);
  });

  it('asks the form to move on Enter in a single-line field and adds a line in a multi-line one', () => {
    expect(applyKey(editState('x'), '', key({ return: true })).action).toBe('enter');
    expect(applyKey(editState('x'), '', key({ return: true }), { multiline: true }).state.value).toBe('x\n');
  });

  it('moves between lines of a multi-line field, and hands ↑ on the first line to the form', () => {
    const s = { value: 'first\nsecond', cursor: 9 };
    const up = applyKey(s, '', key({ upArrow: true }), { multiline: true });
    expect(up.state.cursor).toBe(3);
    expect(applyKey(up.state, '', key({ upArrow: true }), { multiline: true }).action).toBe('up');
  });

  it('ignores control characters as text', () => {
    expect(applyKey(editState(''), '\u0007', plain).state.value).toBe('');
  });
});

describe('filter lines', () => {
  it('reads JSONPATH OPERATOR VALUE per line, quoted values as JSON strings, and value-less operators', () => {
    expect(parseFilterLines('$.data.env equals prod\n\n$.data.labels contains "needs review"\n$.data.pr exists')).toEqual({
      ok: true,
      filters: [
        { jsonPath: '$.data.env', operator: 'equals', value: 'prod' },
        { jsonPath: '$.data.labels', operator: 'contains', value: 'needs review' },
        { jsonPath: '$.data.pr', operator: 'exists' },
      ],
    });
  });

  it('names the line of the first problem', () => {
    const r = parseFilterLines('$.a equals 1\n$.b equalz 2');
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('filter line 2: no operator') });
    expect(parseFilterLines('$..[ equals 1')).toMatchObject({ ok: false, error: expect.stringContaining('jsonPath') });
  });
});

describe('schedule preview', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('gives the next runs of a valid cron in a zone, strictly after now', () => {
    // 09:00 in Tokyo is midnight UTC: the slot at `now` itself is not next
    const p = previewSchedule('0 9 * * *', 'Asia/Tokyo', now, 2);
    expect(p).toEqual({ ok: true, runs: [new Date('2026-01-02T00:00:00Z'), new Date('2026-01-03T00:00:00Z')] });
  });

  it('names a bad cron, an empty one, and an unknown zone', () => {
    expect(previewSchedule('0 9 * *', 'UTC', now)).toMatchObject({ ok: false });
    expect(previewSchedule('  ', 'UTC', now)).toMatchObject({ ok: false, error: expect.stringContaining('empty') });
    expect(previewSchedule('0 9 * * *', 'Mars/Olympus', now)).toMatchObject({ ok: false, error: expect.stringContaining('Mars/Olympus') });
  });
});

describe('automation drafts', () => {
  const draft: Draft = { name: 'N', prompt: 'P', type: 'schedule', cron: '0 9 * * *', zone: 'UTC', eventType: '', provider: 'generic', filters: '' };
  it('builds a schedule or an event trigger', () => {
    expect(draftToBody(draft, new Date())).toEqual({
      ok: true,
      body: { name: 'N', prompt: 'P', triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC' }] },
    });
    expect(draftToBody({ ...draft, type: 'event', eventType: 'push', filters: '$.data.ref equals main' }, new Date())).toEqual({
      ok: true,
      body: { name: 'N', prompt: 'P', triggers: [{ kind: 'event', event_type: 'push', provider: 'generic', filters: [{ jsonPath: '$.data.ref', operator: 'equals', value: 'main' }] }] },
    });
  });

  it('says what is missing', () => {
    expect(draftToBody({ ...draft, name: ' ' }, new Date())).toEqual({ ok: false, error: 'Name is empty' });
    expect(draftToBody({ ...draft, type: 'event' }, new Date())).toEqual({ ok: false, error: 'Event type is empty' });
  });
});

describe('event data and dry-run reasons', () => {
  it('accepts a JSON object (or nothing) and refuses anything else', () => {
    expect(parseEventData('')).toEqual({ ok: true, data: {} });
    expect(parseEventData('{"a":1}')).toEqual({ ok: true, data: { a: 1 } });
    expect(parseEventData('[1]')).toMatchObject({ ok: false, error: 'data must be a JSON object ({...})' });
    expect(parseEventData('{a')).toMatchObject({ ok: false, error: expect.stringContaining('not valid JSON') });
  });

  it('drops the automation name the row already shows', () => {
    expect(failedCondition('Prod', 'trigger of "Prod": filter $.x equals "1" was false')).toBe('filter $.x equals "1" was false');
    expect(failedCondition('Prod', 'automation "Prod" is paused')).toBe('automation "Prod" is paused');
  });
});

describe('text layout', () => {
  it('wraps at spaces and cuts words longer than the width', () => {
    expect(wrap('the quick brown fox', 10)).toEqual(['the quick', 'brown fox']);
    expect(wrap('abcdefghijkl', 8)).toEqual(['abcdefgh', 'ijkl']);
    expect(wrap('key 0123456789', 10)).toEqual(['key', '0123456789']);
    expect(truncate('abcdef', 4)).toBe('abc…');
  });

  it('puts a multi-line text on one line, so what follows a line break still shows (a prompt in a list)', () => {
    expect(oneLine('  first line\n\n  second\tline \x1b[2J\n')).toBe('first line second line \\x1b[2J');
    expect(truncate('one\ntwo three', 8)).toBe('one two…');
  });

  it('keeps the selected row in view, roughly centred', () => {
    expect(windowStart(0, 100, 10)).toBe(0);
    expect(windowStart(50, 100, 10)).toBe(45);
    expect(windowStart(99, 100, 10)).toBe(90);
    expect(windowStart(3, 5, 10)).toBe(0);
  });
});

describe('wide characters', () => {
  it('cuts and pads by terminal columns, never inside an emoji or a CJK character', () => {
    const cut = truncate('日本語の自動化タスク', 9);
    expect(stringWidth(cut)).toBeLessThanOrEqual(9);
    expect(cut.endsWith('…')).toBe(true);
    expect(stringWidth(cell('日本語の自動化タスク', 12))).toBe(12);
    expect(cell('Any deploy 🚀 now', 13)).not.toMatch(/[\uD800-\uDFFF]…/);
    expect(stringWidth(cell('Any deploy 🚀 now', 13))).toBe(13);
    expect(stringWidth(cell('🚀', 4))).toBe(4);
  });

  it('wraps by columns', () => {
    const lines = wrap('日本語のプロンプトはとても長いです 本当に', 10);
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(10);
    expect(lines.join('')).toBe('日本語のプロンプトはとても長いです本当に');
  });

  it('moves over and deletes an emoji or an accented letter as one character', () => {
    const s = editState('a🎉b👩‍💻');
    const back = applyKey(s, '', key({ delete: true })).state;
    expect(back.value).toBe('a🎉b');
    const left = applyKey(back, '', key({ leftArrow: true })).state;
    expect(left.cursor).toBe(3);
    const twice = applyKey(left, '', key({ leftArrow: true })).state;
    expect(twice.cursor).toBe(1);
    const gone = applyKey(left, '', key({ backspace: true })).state;
    expect(gone).toEqual({ value: 'ab', cursor: 1 });
    expect(applyKey({ value: 'e\u0301x', cursor: 2 }, '', key({ delete: true })).state).toEqual({ value: 'x', cursor: 0 });
    expect(applyKey({ value: 'a\nb', cursor: 2 }, '', key({ delete: true })).state).toEqual({ value: 'ab', cursor: 1 });
    expect(applyKey({ value: 'a\nb', cursor: 1 }, '', key({ rightArrow: true })).state.cursor).toBe(2);
  });
});

describe('refreshing a long automation list', () => {
  it('waits one interval per page of 200, to stay within the key\'s rate limit', () => {
    expect(automationsRefreshMs(5000, 0)).toBe(5000);
    expect(automationsRefreshMs(5000, 199)).toBe(5000);
    expect(automationsRefreshMs(5000, 1004)).toBe(30_000);
  });
});

describe('truncateIndented and plural', () => {
  it('keeps the indentation of a pretty-printed line and cuts only its text', () => {
    expect(truncateIndented('    "env": "prod"', 40)).toBe('    "env": "prod"');
    expect(truncateIndented('    "env": "production-eu-west"', 12)).toBe('    "env": …');
    expect(truncateIndented('      deep', 4)).toBe('   …');
  });

  it('counts one message, and many messages', () => {
    expect([plural(1, 'message'), plural(2, 'message'), plural(0, 'message')]).toEqual(['1 message', '2 messages', '0 messages']);
  });
});
