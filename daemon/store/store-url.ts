// What a `--store` value names (CONTRACT §11): a PostgreSQL database by URL, or else a folder.
// Free of the driver, so the CLI can tell without loading it.

/** `postgres://` and `postgresql://` URLs name a PostgreSQL store; anything else is a folder. */
export const isPostgresUrl = (store: string) => /^postgres(ql)?:\/\//i.test(store);

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the PostgreSQL URL given';
  }
}
