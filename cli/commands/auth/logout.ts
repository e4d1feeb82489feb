import { defineCommand } from '../../command.js';
import { KEY_KINDS, type KeyKind } from '../../credentials/store.js';

interface LogoutOptions extends Record<string, unknown> {
  forget?: boolean;
}

export const command = defineCommand<Record<string, never>, LogoutOptions>({
  name: 'logout',
  description: "Remove a profile's stored keys",
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
    const forgot = opts.forget ? await ctx.config().removeProfile(profile) : false;

    if (keychainError) ctx.out.warn(`the keychain did not answer (${keychainError}); only the file was checked.`);
    if (removed.length === 0) ctx.out.status(`No stored key for profile ${profile}.`);
    for (const r of removed) ctx.out.success(`Removed the ${r.kind} key of profile ${profile} from the ${r.from.join(' and the ')}.`);
    if (opts.forget) ctx.out.status(forgot ? `Forgot profile ${profile}.` : `No settings for profile ${profile} to forget.`);
    if (ctx.out.json) ctx.out.printJson({ profile, removed, forgot });
  },
});
