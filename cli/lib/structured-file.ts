// `-f FILE` inputs: JSON or YAML, from a file or stdin (`-`). YAML may hold several documents
// (separated by `---`, as kubectl takes them); each is one value. The yaml package is loaded only
// when a file is not JSON.
import { readFile } from 'node:fs/promises';
import { type Context } from '../context.js';
import { InvalidInputError, UsageError } from '../errors.js';
import { refuseUnsendable } from './json-arg.js';

export interface StructuredFile {
  /** how errors name the input: 'automations.yaml' or 'stdin' */
  name: string;
  /** one value per document (a JSON file is one document) */
  documents: unknown[];
}

export async function readStructuredFile(ctx: Pick<Context, 'readStdin'>, path: string, flag = '-f'): Promise<StructuredFile> {
  let text: string;
  const name = path === '-' ? 'stdin' : path;
  if (path === '-') {
    text = await ctx.readStdin();
  } else {
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
      throw new UsageError(`cannot read ${flag} '${path}': ${why}`);
    }
  }
  if (!text.trim()) throw new InvalidInputError(`${flag} ${name} is empty`);
  return { name, documents: await parseStructuredText(text, name) };
}

/** JSON when the name says so or the text starts like JSON; YAML otherwise. */
export async function parseStructuredText(text: string, name: string): Promise<unknown[]> {
  const body = text.replace(/^\uFEFF/, '');
  if (/\.json$/i.test(name) || /^\s*[{[]/.test(body)) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      // Flow-style YAML also starts with { or [; only a .json file must be strict JSON.
      if (/\.json$/i.test(name)) throw new InvalidInputError(`${name} is not valid JSON: ${(err as Error).message}`);
    }
    if (value !== undefined) {
      refuseUnsendable(value, name);
      return [value];
    }
  }
  const { parseAllDocuments } = await import('yaml');
  const parsed = parseAllDocuments(body);
  const docs = Array.isArray(parsed) ? parsed : [];
  const documents: unknown[] = [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error) {
      const where = error.linePos ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '';
      const first = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      // `cron_expression: */5 * * * *` is the classic: a plain YAML value cannot start with `*`.
      const hint = /alias/i.test(error.message) ? ' (a value starting with * must be quoted, e.g. cron_expression: "*/5 * * * *")' : '';
      throw new InvalidInputError(`${name} is not valid YAML${where}: ${first}${hint}`);
    }
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (err) {
      // e.g. an alias bomb ("billion laughs"): the yaml package refuses to expand it
      throw new InvalidInputError(`${name} is not valid YAML: ${(err as Error).message}`);
    }
    if (value !== null && value !== undefined) documents.push(value);
  }
  if (documents.length === 0) throw new InvalidInputError(`${name} holds no document`);
  for (const doc of documents) refuseUnsendable(doc, name);
  return documents;
}
