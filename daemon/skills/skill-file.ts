import { parseDocument } from 'yaml';
import { hasLoneSurrogate, isBlank } from '../text-checks.js';

// The Agent Skills specification as CONTRACT §8 words it.
export const MAX_SKILL_BYTES = 131072;
const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_CODE_POINTS = 1024;
const NAME_CHARS = /^[a-z0-9-]+$/;
/**
 * Front matter larger than this is not parsed. Real skills' front matter is under 2 KiB (name,
 * description, a few optional keys); the YAML parser's time on hostile YAML (thousands of keys,
 * deep flow nesting) grows fast with its size, all of it on the daemon's event loop.
 */
export const MAX_FRONT_MATTER_BYTES = 16384;

/** Thousands of nested brackets overflow the parser's stack (it reports that as a YAML error). */
const STACK_OVERFLOW = /Maximum call stack size exceeded/;
const TOO_DEEP = 'front matter nests lists or mappings too deeply to read';

export interface SkillFields {
  name: string;
  description: string;
}

export type SkillFileVerdict = { ok: true; skill: SkillFields } | { ok: false; reason: string };

/** What the file's `name` must equal: its folder's name, or the repository's for a root file. */
export interface ExpectedName {
  name: string;
  /** "folder" or "repository", for the reason shown when they differ */
  from: 'folder' | 'repository';
}

/**
 * Judges one downloaded SKILL.md. Every failure comes back as a reason a skill author can act
 * on, naming what is wrong and, where it helps, what was expected.
 */
export function judgeSkillFile(bytes: Uint8Array, expected: ExpectedName): SkillFileVerdict {
  let text: string;
  try {
    // fatal: a file with invalid UTF-8 is refused rather than read with replacement characters.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail('file is not valid UTF-8 text');
  }
  const frontMatter = extractFrontMatter(text);
  if ('reason' in frontMatter) return fail(frontMatter.reason);

  const size = Buffer.byteLength(frontMatter.yaml);
  if (size > MAX_FRONT_MATTER_BYTES) {
    return fail(`front matter is ${size} bytes, more than the ${MAX_FRONT_MATTER_BYTES} read: keep it to name, description and a few short keys`);
  }
  let data: unknown;
  try {
    const doc = parseDocument(frontMatter.yaml, { prettyErrors: true });
    if (doc.errors.length > 0) return fail(STACK_OVERFLOW.test(doc.errors[0].message) ? TOO_DEEP : yamlReason(doc.errors[0]));
    data = doc.toJS();
  } catch (err) {
    if (err instanceof RangeError) return fail(TOO_DEEP);
    return fail(`front matter is not valid YAML: ${(err as Error).message}`);
  }
  if (data === null || data === undefined) {
    return fail('front matter is empty: it needs a name and a description');
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    return fail('front matter must be a YAML mapping of keys to values (name: ..., description: ...)');
  }
  const fields = data as Record<string, unknown>;
  const problems = [nameProblem(fields.name, expected), descriptionProblem(fields.description, 'description' in fields)].filter(
    (p): p is string => p !== undefined,
  );
  if (problems.length > 0) return fail(problems.join('; '));
  return { ok: true, skill: { name: fields.name as string, description: fields.description as string } };
}

function fail(reason: string): SkillFileVerdict {
  return { ok: false, reason };
}

function extractFrontMatter(text: string): { yaml: string } | { reason: string } {
  const lines = text.split(/\r?\n/);
  if (!isFence(lines[0])) {
    return { reason: "no front matter: the file must start with a line '---', then YAML with name and description, then '---'" };
  }
  const close = lines.findIndex((line, i) => i > 0 && isFence(line));
  if (close === -1) return { reason: "front matter is not closed: no line '---' after the opening one" };
  return { yaml: lines.slice(1, close).join('\n') };
}

function isFence(line: string | undefined): boolean {
  return line !== undefined && line.trimEnd() === '---';
}

function yamlReason(err: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }): string {
  // yaml's pretty message ends with the position and a code excerpt; we keep the sentence and
  // give the line as counted in the file (the opening '---' is line 1).
  const sentence = err.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();
  const line = err.linePos?.[0]?.line;
  return `front matter is not valid YAML: ${sentence}${line ? ` (line ${line + 1} of the file)` : ''}`;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary data (!!binary)';
  if (value instanceof Date) return 'a date';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

function quote(value: string): string {
  const shown = [...value].length > 80 ? `${[...value].slice(0, 77).join('')}...` : value;
  return JSON.stringify(shown);
}

function nameProblem(name: unknown, expected: ExpectedName): string | undefined {
  if (name === undefined || name === null) return 'name is missing';
  if (typeof name === 'number' || typeof name === 'boolean') return `name must be a string, found ${describe(name)} (YAML reads ${name} so; quote it: name: "${name}")`;
  if (typeof name !== 'string') return `name must be a string, found ${describe(name)}`;
  if (name.length === 0) return 'name is empty';
  const length = [...name].length;
  if (length > MAX_NAME_LENGTH) {
    return `name ${quote(name)} is ${length} characters long; the limit is ${MAX_NAME_LENGTH}`;
  }
  if (!NAME_CHARS.test(name)) {
    return `name ${quote(name)} may only contain lowercase letters a-z, digits and hyphens`;
  }
  if (name.startsWith('-') || name.endsWith('-')) return `name ${quote(name)} must not start or end with a hyphen`;
  if (name.includes('--')) return `name ${quote(name)} must not contain two hyphens in a row`;
  if (name !== expected.name) {
    return expected.from === 'folder'
      ? `name ${quote(name)} must equal the name of its folder, ${quote(expected.name)}`
      : `name ${quote(name)} must equal the repository's name in lower case, ${quote(expected.name)} (the file is at the repository's root)`;
  }
  return undefined;
}

function descriptionProblem(description: unknown, present: boolean): string | undefined {
  if (description === undefined || description === null) return present ? 'description is empty' : 'description is missing';
  if (typeof description !== 'string') return `description must be a string, found ${describe(description)}`;
  if (isBlank(description)) return 'description is empty';
  if (hasLoneSurrogate(description)) return 'description has an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape), which is not Unicode text';
  const length = [...description].length;
  if (length > MAX_DESCRIPTION_CODE_POINTS) {
    return `description is ${length} characters long; the limit is ${MAX_DESCRIPTION_CODE_POINTS}`;
  }
  return undefined;
}
