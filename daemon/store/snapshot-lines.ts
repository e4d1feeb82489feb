// Reads a snapshot a line at a time. A JS string holds at most about 512 MiB, so a larger
// snapshot cannot be read whole and parsed: the daemon wrote it, then could neither start nor
// compact again. SnapshotFile writes one row a line, so its files can be read this way whatever
// their size:
//
//   {"schema_version":6,"seq":41,"tables":{
//   "teams":[
//   {...row...},
//   {...row...}],
//   "automations":[],
//   ...
//   }}
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

export interface SnapshotLines {
  schema_version: number;
  seq: number;
  tables: Record<string, unknown[]>;
}

const CHUNK_BYTES = 4 * 1024 * 1024;
const HEADER = /^\{"schema_version":(-?\d+),"seq":(-?\d+),"tables":\{$/;
const TABLE = /^("(?:[^"\\]|\\.)*"):\[(\]?),?$/;

/** Why the file is not a snapshot as SnapshotFile writes it (a line number, 1-based, where known). */
export class NotSnapshotLines extends Error {}

export async function readSnapshotLines(path: string): Promise<SnapshotLines> {
  const handle = await open(path, 'r');
  const parser = new LineParser();
  try {
    const decoder = new StringDecoder('utf8');
    const buf = Buffer.alloc(CHUNK_BYTES);
    let rest = '';
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const text = rest + decoder.write(buf.subarray(0, bytesRead));
      const lines = text.split('\n');
      rest = lines.pop()!;
      for (const line of lines) parser.line(line);
    }
    rest += decoder.end();
    if (rest !== '') parser.line(rest);
  } finally {
    await handle.close();
  }
  return parser.done();
}

class LineParser {
  private n = 0;
  private header: { schema_version: number; seq: number } | undefined;
  private readonly tables: Record<string, unknown[]> = {};
  private table: unknown[] | undefined;
  private ended = false;

  line(line: string): void {
    this.n++;
    if (this.header === undefined) {
      const m = HEADER.exec(line);
      if (!m) throw this.bad('it does not start with {"schema_version":N,"seq":N,"tables":{');
      this.header = { schema_version: Number(m[1]), seq: Number(m[2]) };
      return;
    }
    if (this.ended) {
      if (line.trim() !== '') throw this.bad('text follows its end');
      return;
    }
    if (this.table === undefined) {
      if (line === '}}') {
        this.ended = true;
        return;
      }
      const m = TABLE.exec(line);
      if (!m) throw this.bad('a table was expected');
      const rows: unknown[] = [];
      this.tables[JSON.parse(m[1]) as string] = rows;
      if (m[2] !== ']') this.table = rows;
      return;
    }
    // A row, then `,` (more follow), `]` (the table ends) or `],` (another table follows).
    let end = line.length;
    while (end > 0 && (line[end - 1] === ',' || line[end - 1] === ']')) end--;
    const closes = line.indexOf(']', end) !== -1;
    let row: unknown;
    try {
      row = JSON.parse(line.slice(0, end));
    } catch (err) {
      throw this.bad(`a row is not valid JSON (${(err as Error).message})`);
    }
    this.table.push(row);
    if (closes) this.table = undefined;
  }

  done(): SnapshotLines {
    if (!this.header || !this.ended) throw new NotSnapshotLines('it ends before its last line (}}): the file is cut short');
    return { ...this.header, tables: this.tables };
  }

  private bad(why: string): NotSnapshotLines {
    return new NotSnapshotLines(`line ${this.n}: ${why}`);
  }
}
