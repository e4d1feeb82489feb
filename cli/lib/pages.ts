// What every list command does with pages: the same three options, one page or all of them, and
// one hint on stderr when rows were left (stdout keeps only the rows, for --json too).
import { type ApiClient, type Query } from '../../shared/client.js';
import { type OptionDefinition, integer } from '../command.js';
import { type Output } from '../output.js';

export interface PageOptions {
  limit?: number;
  all?: boolean;
  cursor?: string;
}

export const PAGE_OPTIONS: readonly OptionDefinition[] = [
  { flags: '-L, --limit <n>', description: 'at most N per page (1-200, default 50)', parse: integer({ min: 1, max: 200 }) },
  { flags: '--all', description: 'every page, not only the first' },
  { flags: '--cursor <cursor>', description: 'the page after this cursor (printed on stderr when there are more)', conflicts: ['all'] },
];

/** The rows of one page (with the cursor of the next, when there is one), or of every page with --all. */
export async function listRows<T>(client: ApiClient, path: string, query: Query, opts: PageOptions): Promise<{ rows: T[]; next?: string }> {
  const paged = { ...query, limit: opts.limit, cursor: opts.cursor };
  if (opts.all) return { rows: await client.listAll<T>(path, paged) };
  const page = await client.list<T>(path, paged);
  return { rows: page.data, next: page.next_cursor };
}

/** Said to the same command line: adding --cursor keeps whatever filters it has. */
export function noteMorePages(out: Output, next: string | undefined): void {
  if (next) out.status(`There are more: pass --all for every page, or --cursor ${next} for the next one.`);
}
