import { defineCommand } from '../../command.js';
import { connectionAccountPrefix, KEY_KINDS, type KeyKind } from '../../credentials/store.js';

interface LogoutOptions extends Record<string, unknown> {
  forget?: boolean;
}

export const command = defineCommand<Record<string, never>, LogoutOptions>({
  name: 'logout',
  description: "Remove a profile's stored keys, and the connection secrets kept for it",
  options: [{ flags: '--forget', description: "also forget the profile's URL and team" }],
  examples: [
    { description: 'Remove the keys of the default profile (keychain and file)', command: 'svc logout' },
    { description: 'Remove the profile `ci` entirely', command: 'svc logout --profile ci --forget' },
  ],
  async run(_args, opts, ctx) {
    const profile = ctx.profile();
    if (opts.forget) ctx.config().assertChangeable();
    const removed: { kind: KeyKind; from: string[] }[] = [];
    let keychainError: string | undefined;
    for (const kind of KEY_KINDS) {
      const r = await ctx.store().remove(profile, kind);
      keychainError ??= r.keychainError;
      const from = [...(r.keychain ? ['keychain'] : []), ...(r.file ? ['file'] : [])];
      if (from.length) removed.push({ kind, from });
    }
    // The webhook secrets `svc connections create` kept for `svc connections test` go with the keys.
    const secrets = await ctx.store().removeAccountsStartingWith(connectionAccountPrefix(profile));
    keychainError ??= secrets.keychainError;
    const forgot = opts.forget ? await ctx.config().removeProfile(profile) : false;

    if (keychainError) ctx.out.warn(`the keychain did not answer (${keychainError}); only the file was checked.`);
    if (removed.length === 0) ctx.out.status(`No stored key for profile ${profile}.`);
    for (const r of removed) ctx.out.success(`Removed the ${r.kind} key of profile ${profile} from the ${r.from.join(' and the ')}.`);
    const n = secrets.removed.length;
    if (n > 0) ctx.out.success(`Removed the webhook secret${n === 1 ? '' : 's'} of ${n} connection${n === 1 ? '' : 's'} kept for profile ${profile}.`);
    if (opts.forget) ctx.out.status(forgot ? `Forgot profile ${profile}.` : `No settings for profile ${profile} to forget.`);
    if (ctx.out.json) ctx.out.printJson({ profile, removed, connection_secrets_removed: n, forgot });
  },
});
