// Output helpers: JSON mode prints only JSON, tables align, colour follows the TTY, NO_COLOR,
// FORCE_COLOR and --no-color, and prompts refuse to run without a terminal.
import * as chalk from 'chalk';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/errors.js';
import { memoryIO } from '../../cli/io.js';
import stringWidth from 'string-width';
import { cellText, colorEnabled, createOutput, renderTable } from '../../cli/output.js';
import { inert } from '../../cli/terminal-text.js';
import { confirm, promptSecret } from '../../cli/prompt.js';

const rows = [
  { id: 'a1', name: 'nightly report', status: 'active', n: 3 },
  { id: 'b22', name: null, status: 'paused', n: 12 },
];
const columns = [
  { header: 'id', value: (r: (typeof rows)[0]) => r.id },
  { header: 'name', value: (r: (typeof rows)[0]) => r.name },
  { header: 'status', value: (r: (typeof rows)[0]) => r.status, style: (s: string, c: any) => c.green(s) },
];

describe('inert', () => {
  it('shows control characters and bidi overrides as escapes, keeping newline, tab and everything printable', () => {
    expect(inert('a\u001b[31mb\u0007c\rd\u009be\u202ef\u2066g')).toBe('a\\x1b[31mb\\x07c\\x0dd\\x9be\\u202ef\\u2066g');
    expect(inert('line one\n\tindented — ünïcødé 漢字 🚀')).toBe('line one\n\tindented — ünïcødé 漢字 🚀');
  });

  it('applies to table cells and to notes on stderr; a cell also loses its tabs and newlines', () => {
    expect(cellText('a\tb\nc\u001b[2J')).toBe('a b c\\x1b[2J');
    expect(cellText({ k: 'v\u202e' })).toBe('{"k":"v\\u202e"}');
    const io = memoryIO();
    const out = createOutput(io, { json: false, color: false });
    out.status('scanned \u001b]0;title\u0007');
    out.warn('careful \r');
    expect(io.err()).toBe('scanned \\x1b]0;title\\x07\nwarning: careful \\x0d\n');
  });
});

describe('createOutput', () => {
  it('prints aligned plain columns with a header when stdout is not a TTY', () => {
    const io = memoryIO();
    createOutput(io, { json: false, color: true }).table(rows, columns);
    expect(io.out()).toBe(['ID   NAME            STATUS', 'a1   nightly report  active', 'b22  -               paused', ''].join('\n'));
  });

  it('in JSON mode prints result() as JSON and suppresses every human renderer', () => {
    const io = memoryIO();
    const out = createOutput(io, { json: true, color: true });
    out.table(rows, columns);
    out.fields([['Name', 'x']]);
    out.line('hello');
    out.result(rows, () => out.line('human'));
    out.status('to stderr');
    expect(JSON.parse(io.out())).toEqual(rows);
    expect(io.err()).toBe('to stderr\n');
  });

  it('says "nothing to show" on stderr for an empty table, keeping stdout empty', () => {
    const io = memoryIO();
    createOutput(io, { json: false, color: false }).table([], columns, { empty: 'No automations.' });
    expect(io.out()).toBe('');
    expect(io.err()).toBe('No automations.\n');
  });

  it('colours and truncates to the terminal width only on a TTY', () => {
    const io = memoryIO({ isTTY: true, env: { FORCE_COLOR: '1' } });
    const long = [{ id: 'x', name: 'n'.repeat(200), status: 'active', n: 1 }];
    createOutput(io, { json: false, color: true, chalk }).table(long, columns);
    const [header, line] = io.out().split('\n');
    expect(header).toContain('\u001b[1m'); // bold header
    expect(line).toContain('\u001b[32mactive'); // styled cell
    expect(line.replace(/\u001b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(100);
    expect(line).toContain('…');
  });

  it('writes status, success and warnings to stderr only', () => {
    const io = memoryIO();
    const out = createOutput(io, { json: false, color: false });
    out.status('working');
    out.success('done');
    out.warn('careful');
    expect(io.out()).toBe('');
    expect(io.err()).toBe('working\ndone\nwarning: careful\n');
  });
});

describe('without chalk (a piped run never loads it)', () => {
  it('styles are the identity, however they are chained', () => {
    const io = memoryIO({ isTTY: true });
    const out = createOutput(io, { json: false, color: true });
    expect(out.color).toBe(false);
    expect(out.chalk.bold.green('x')).toBe('x');
    out.table(rows, columns);
    expect(io.out()).not.toContain('\u001b[');
  });
});

describe('colorEnabled', () => {
  const tty = { write() {}, isTTY: true };
  const pipe = { write() {}, isTTY: false };
  it('is on for a TTY unless --no-color, NO_COLOR or TERM=dumb; FORCE_COLOR turns it on for pipes', () => {
    expect(colorEnabled(tty, {}, true)).toBe(true);
    expect(colorEnabled(tty, {}, false)).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '1' }, true)).toBe(false);
    expect(colorEnabled(tty, { TERM: 'dumb' }, true)).toBe(false);
    expect(colorEnabled(pipe, {}, true)).toBe(false);
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' }, true)).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true)).toBe(false);
  });

  it('is off on a TTY with FORCE_COLOR=0 or false, as Node and chalk read them; an empty FORCE_COLOR is on', () => {
    expect(colorEnabled(tty, { FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: 'false' }, true)).toBe(false);
    expect(colorEnabled(pipe, { FORCE_COLOR: '' }, true)).toBe(true);
  });
});

describe('cellText', () => {
  it('shows absent values as "-", arrays joined, objects as JSON, newlines folded', () => {
    expect(cellText(undefined)).toBe('-');
    expect(cellText('')).toBe('-');
    expect(cellText(['a', 'b'])).toBe('a, b');
    expect(cellText({ a: 1 })).toBe('{"a":1}');
    expect(cellText('line one\n  line two')).toBe('line one line two');
  });
});

describe('prompts without a terminal', () => {
  it('are usage errors that name the flag to pass instead', async () => {
    const io = memoryIO();
    await expect(promptSecret(io, 'Key: ', '--key-stdin')).rejects.toThrow(UsageError);
    await expect(promptSecret(io, 'Key: ', '--key-stdin')).rejects.toThrow(/pass --key-stdin/);
    await expect(confirm(io, 'Delete?', '--yes')).rejects.toThrow(/pass --yes/);
  });

  it('say it is CI that stops them when there is a terminal', async () => {
    const io = memoryIO({ isTTY: true, env: { CI: 'true' } });
    io.stdin.isTTY = true;
    await expect(confirm(io, 'Delete?', '--yes')).rejects.toThrow('cannot ask for confirmation with CI set: pass --yes');
    await expect(confirm(memoryIO(), 'Delete?', '--yes')).rejects.toThrow('cannot ask for confirmation without a terminal: pass --yes');
  });
});

describe('renderTable on a terminal', () => {
  const plain = new chalk.Chalk({ level: 0 });
  const widthOf = (line: string) => stringWidth(line);

  // An odd and an even width for the cut column: a wide character may not fit the last column.
  it.each([40, 41])('cuts between whole characters and measures emoji and CJK as two columns (width %i)', (width) => {
    const rows = [{ name: 'emoji', text: '😀'.repeat(50) }, { name: 'cjk', text: '漢字'.repeat(30) }];
    const out = renderTable(rows, [{ header: 'name', value: (r) => r.name, keep: true }, { header: 'text', value: (r) => r.text }], { chalk: plain, tty: true, width });
    const lines = out.trimEnd().split('\n');
    expect(out).not.toContain('\uFFFD');
    for (const line of lines) expect(widthOf(line)).toBeLessThanOrEqual(width);
    expect(lines[1]).toMatch(/^emoji {2}(😀)+…$/);
    expect(lines[2]).toMatch(/^cjk {4}(漢字)+漢?…$/);
  });

  it('never cuts a keep column (an id must stay copyable), cutting the others down to 8 columns', () => {
    const rows = [{ id: 'i'.repeat(36), text: 'a description that is long enough to cut' }];
    const columns = [
      { header: 'id', value: (r: (typeof rows)[number]) => r.id, keep: true },
      { header: 'description', value: (r: (typeof rows)[number]) => r.text },
    ];
    const lines = renderTable(rows, columns, { chalk: plain, tty: true, width: 30 }).trimEnd().split('\n');
    expect(lines[1]).toBe(`${rows[0].id}  a descr…`);
  });
});
