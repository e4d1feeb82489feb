// An environment as `Label: value` lines (admin create and project update show the same).
import type { EnvironmentDto } from '../../shared/schemas/projects.js';
import { formatTime } from './format.js';

export function environmentFields(e: EnvironmentDto, tty: boolean): [string, unknown][] {
  return [
    ['ID', e.id],
    ['Slug', e.slug],
    ['Name', e.name],
    ['Description', e.description],
    ['Project', e.project_id],
    ['Updated', formatTime(e.updated_at, tty)],
  ];
}
