import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Daemon and CLI tests start real processes; keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
  },
});
