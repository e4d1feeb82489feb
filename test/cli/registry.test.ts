// The command table: every entry loads, matches its definition, documents itself with examples,
// and does not shadow a global option.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.js';
import { commandWords, findEntry } from '../../cli/main.js';

const GLOBAL_FLAGS = ['--json', '--profile', '--url', '--team', '--no-color', '--color', '--no-wait', '--wait', '--help', '-h', '--version', '-v'];

describe('the command table', () => {
  it('has unique names', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const entry of COMMANDS) {
    it(`${entry.name}: loads a definition with the same name and description, examples of svc and no global flag`, async () => {
      const def = await entry.load();
      expect(def.name).toBe(entry.aliasOf ?? entry.name);
      expect(entry.description).toBe(entry.aliasOf ? `${def.description} (same as \`svc ${entry.aliasOf}\`)` : def.description);
      expect(def.examples?.length ?? 0).toBeGreaterThan(0);
      for (const e of def.examples ?? []) expect(e.command).toMatch(/(^|[\s(|;])svc( |$)/);
      for (const o of def.options ?? []) {
        const flags = o.flags.split(/[ ,|]+/).filter((f) => f.startsWith('-'));
        for (const f of flags) expect(GLOBAL_FLAGS, `${entry.name} ${o.flags}`).not.toContain(f);
      }
      expect(typeof def.run).toBe('function');
    });
  }
});

describe('finding the command to load', () => {
  it('skips options and the values of global options', () => {
    expect(commandWords(['--profile', 'dev', '--json', 'auth', 'status', '--url', 'x'])).toEqual(['auth', 'status']);
    expect(commandWords(['login', '--', 'auth'])).toEqual(['login']);
  });

  it('picks the longest table name that prefixes the words', () => {
    expect(findEntry(['--team', 'daemon', 'daemon', 'start', '--port', '0'])?.name).toBe('daemon start');
    expect(findEntry(['auth', 'status', 'extra'])?.name).toBe('auth status');
    expect(findEntry(['auth'])).toBeUndefined();
    expect(findEntry(['--version'])).toBeUndefined();
  });
});
