// Skill scans of public GitHub repositories (spec §4.1, CONTRACT §8).
import { Data, ScanBody, ScanResult, TeamSlugParams } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

export function skillRoutes(app: App, { skills }: Services): void {
  app.post(
    '/teams/:teamSlug/skills/scan',
    { config: { auth: 'team' }, schema: { tags: ['skills'], params: TeamSlugParams, body: ScanBody, response: { 200: Data(ScanResult) } } },
    async (req) => ({ data: await skills.scan(req.team!.id, req.body) }),
  );
}
