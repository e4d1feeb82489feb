import { apiPath } from '../../../shared/client.js';
import type { SessionDto } from '../../../shared/schemas/sessions.js';
import { defineCommand } from '../../command.js';
import { resolveEnvironmentId } from '../../lib/environment-ref.js';
import { DEFAULT_INTERVAL_MS, watchSession } from '../../lib/session-watch.js';
import { readTextInput } from '../../lib/text-input.js';
import { sessionFields } from '../../lib/transcript.js';
import { parseInterval } from './watch.js';

interface StartOptions extends Record<string, unknown> {
  prompt?: string;
  promptFile?: string;
  environment?: string;
  watch?: boolean;
  interval?: number;
}

export const command = defineCommand<Record<string, never>, StartOptions>({
  name: 'sessions start',
  description: 'Start a session from a prompt',
  options: [
    { flags: '-p, --prompt <text>', description: 'the prompt', conflicts: ['promptFile'] },
    { flags: '-F, --prompt-file <path>', description: 'read the prompt from a file (- reads stdin)', conflicts: ['prompt'] },
    { flags: '--environment <id-or-slug>', description: "the environment to run in (default: the team's default)" },
    { flags: '-w, --watch', description: 'then follow the session until it ends, as `svc sessions watch` does' },
    { flags: '--interval <seconds>', description: `with --watch: how often to ask (default ${DEFAULT_INTERVAL_MS / 1000})`, parse: parseInterval, requires: 'watch' },
  ],
  examples: [
    { description: 'Start a session', command: 'svc sessions start --prompt "Summarise yesterday\'s failed deploys"' },
    { description: 'Prompt from a file, in the staging environment, and wait for the answer', command: 'svc sessions start --prompt-file prompt.md --environment staging --watch' },
    { description: 'Only the id, for a script', command: "svc sessions start --prompt-file - --json < prompt.md | jq -r .session_id" },
  ],
  async run(_args, opts, ctx) {
    const prompt = await readTextInput(ctx, { inline: opts.prompt, file: opts.promptFile }, { inline: '--prompt', file: '--prompt-file' });
    const team = await ctx.team();
    const client = await ctx.client();
    const body: { prompt: string; environment_id?: string } = { prompt };
    if (opts.environment) body.environment_id = await resolveEnvironmentId(client, team, opts.environment);
    const session = await client.post<SessionDto>(apiPath`/teams/${team}/sessions`, body);
    if (opts.watch) {
      ctx.out.status(`Started session ${session.session_id}.`);
      await watchSession(ctx, client, team, session.session_id, { intervalMs: opts.interval ?? DEFAULT_INTERVAL_MS });
      return;
    }
    ctx.out.success(`Started session ${session.session_id}; follow it with \`svc sessions watch ${session.session_id}\`.`);
    ctx.out.result(session, (s) => ctx.out.fields(sessionFields(s, ctx.io.stdout.isTTY)));
  },
});
