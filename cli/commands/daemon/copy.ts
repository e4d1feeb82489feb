import { defineCommand } from '../../command.js';
import { ConflictError, ConnectionFailure, UsageError } from '../../errors.js';

interface CopyFlags extends Record<string, unknown> {
  from: string;
  to: string;
}

export const command = defineCommand<Record<string, never>, CopyFlags>({
  name: 'daemon copy',
  description: 'Copy a whole store (a data folder or a PostgreSQL database) into an empty one',
  options: [
    { flags: '--from <dir|url>', description: 'the store to copy: a data folder no daemon is running on, or a postgres:// URL', required: true },
    { flags: '--to <dir|url>', description: 'where to copy it: a new or empty folder, or the postgres:// URL of an empty database', required: true },
  ],
  examples: [
    { description: 'Move a data folder to PostgreSQL (stop its daemon first)', command: 'svc daemon copy --from ~/.local/share/svc --to postgres://svc:secret@db.internal/svc' },
    { description: 'Back a PostgreSQL store up into a folder', command: 'svc daemon copy --from "$SVC_STORE" --to "backup-$(date +%F)"' },
  ],
  async run(_args, flags, ctx) {
    // Loaded here: `svc --help` and other commands load no store code.
    const { copyStore, CopyRefusedError, StoreUnreachableError } = await import('../../../daemon/store/copy.js');
    const logger = {
      info: () => undefined,
      warn: (objOrMsg: object | string, msg?: string) => ctx.out.warn(logText(objOrMsg, msg)),
      error: (objOrMsg: object | string, msg?: string) => ctx.out.warn(logText(objOrMsg, msg)),
    };
    let result;
    try {
      result = await copyStore({ from: flags.from, to: flags.to, logger, onTable: (table, rows) => ctx.out.status(`${table}: ${rows} copied`) });
    } catch (err) {
      if (err instanceof CopyRefusedError) {
        if (err.reason === 'same-store' || err.reason === 'source-missing') throw new UsageError(err.message);
        throw new ConflictError(`${err.message}. Nothing was copied.`);
      }
      if (err instanceof StoreUnreachableError) throw new ConnectionFailure(`the PostgreSQL database at ${err.store}`, err.reason);
      throw err;
    }
    ctx.out.result(result, (r) => {
      ctx.out.fields([
        ['From', `${r.from.store} (${r.from.kind})`],
        ['To', `${r.to.store} (${r.to.kind})`],
        ...Object.entries(r.tables).map(([table, n]): [string, unknown] => [table, n]),
      ]);
    });
    ctx.out.success(`Copied ${result.rows} rows; every table of the copy holds as many rows as the source.`);
    const keyHint =
      result.to.kind === 'postgres'
        ? result.master_key_check === 'copied'
          ? 'The database records the master key check of the source: start daemons on it with that key.'
          : 'The first daemon started on the database records its master key as the one every daemon on it must hold: start it with the key of the source (SVC_MASTER_KEY, or master.key in its --data folder).'
        : 'Start the daemon on the copy with the master key of the source (SVC_MASTER_KEY, or master.key copied into the folder).';
    ctx.out.status(`Env var values are copied sealed, as they were. ${keyHint} The admin token is not part of a store: give it as SVC_ADMIN_TOKEN, or keep admin-token in the --data folder.`);
  },
});

/** A store log line as one line of text. */
function logText(objOrMsg: object | string, msg?: string): string {
  if (typeof objOrMsg === 'string') return objOrMsg;
  const err = (objOrMsg as { err?: { message?: string } }).err;
  return [msg, err?.message].filter(Boolean).join(': ');
}
