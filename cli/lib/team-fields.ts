// A team as `Label: value` lines (admin create and update show the same).
import type { TeamDto } from '../../shared/schemas/admin.js';
import { formatTime, yesNo } from './format.js';

export function teamFields(t: TeamDto, tty: boolean): [string, unknown][] {
  return [
    ['Slug', t.slug],
    ['Name', t.name],
    ['ID', t.id],
    ['Admitted', yesNo(t.execution_admitted)],
    ['Created', formatTime(t.created_at, tty)],
  ];
}
