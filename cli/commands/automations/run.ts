import { apiPath } from '../../../shared/client.js';
import type { SessionDto } from '../../../shared/schemas/sessions.js';
import { defineCommand } from '../../command.js';
import { printSession } from '../../automations/render.js';
import { resolveAutomationId } from '../../automations/resolve.js';

export const command = defineCommand<{ automation: string }, Record<string, never>>({
  name: 'automations run',
  description: 'Run an automation now (also when paused), and print the session it started',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  examples: [
    { description: 'Try an automation out', command: 'svc automations run "Nightly report"' },
    { description: 'Start a run and follow its session', command: 'svc sessions watch "$(svc automations run "Nightly report" --json | jq -r .session_id)"' },
  ],
  async run(args, _opts, ctx) {
    const client = await ctx.client();
    const team = await ctx.team();
    const id = await resolveAutomationId(client, team, args.automation);
    const session = await client.post<SessionDto>(apiPath`/teams/${team}/automations/${id}/runs`);
    ctx.out.result(session, () => printSession(ctx, session));
    ctx.out.success(`Started session ${session.session_id}.`);
  },
});
