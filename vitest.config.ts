import { defineConfig } from 'vitest/config';

// The daemon and CLI tests run once per store backend (test/helpers/test-store.ts): `file` runs
// every test on the JSON-file store, `postgres` runs them again with each test daemon on a
// database of its own on one embedded PostgreSQL server for the run (test/helpers/postgres-server.ts).
// `vitest run --project file` or `--project postgres` runs one of them.

/** Daemon and CLI tests that stay on the file project: what they test has no PostgreSQL counterpart. */
const FILE_STORE_ONLY = [
  // The JSON-file store itself: its journal and snapshot files, torn and corrupt lines, crashes of
  // a writing process, the data-folder lock, zero fill, compaction and retention.
  'test/daemon/store-journal.test.ts',
  'test/daemon/store-crash.test.ts',
  'test/daemon/store-lock.test.ts',
  'test/daemon/data-folder.test.ts',
  // In-process over a journal store, counting its commits or reading its journal records.
  'test/daemon/events-batching.test.ts',
  'test/daemon/sessions-service.test.ts',
  // The file store checks a master key against the env var values stored; PostgreSQL records a
  // check value at first start instead, which test/postgres/failures.test.ts covers.
  'test/daemon/master-key.test.ts',
];

/** Tests that start no daemon and open no store (parsing, output, config, the error envelope): no store to vary. */
const NO_DAEMON = [
  'test/daemon/error-handler.test.ts',
  'test/cli/automations-preview.test.ts',
  'test/cli/basics.test.ts',
  'test/cli/client.test.ts',
  'test/cli/config.test.ts',
  'test/cli/exit-codes.test.ts',
  'test/cli/fast-start.test.ts',
  'test/cli/lookup.test.ts',
  'test/cli/output.test.ts',
  'test/cli/registry.test.ts',
  'test/cli/stdout-failures.test.ts',
];

// Every test talks plain HTTP over loopback, so no process of the run needs the host's extra CA
// certificates; yet Node 20 reads and parses that bundle at every start, before any of our code
// (about 60 ms a process on a machine that sets it), and the suite starts over a thousand processes.
// Deleted here, before the workers are forked, it reaches none of them nor anything they spawn.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Daemon and CLI tests start real processes; keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
    // A worker runs file after file with the modules it has loaded (the daemon's, Fastify's,
    // typebox's), instead of loading them again in a fresh process for each: a third less CPU for
    // the whole suite. The tests keep no state in modules or process-wide settings; each starts its
    // own daemons on folders and databases of its own, and takes its store from its project
    // (test/daemon/store-backend.test.ts checks that).
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'file',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          env: { SVC_TEST_STORE: 'file' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/daemon/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/cli/**/*.test.tsx'],
          exclude: [...FILE_STORE_ONLY, ...NO_DAEMON],
          env: { SVC_TEST_STORE: 'postgres' },
          // Only when this project runs: a run of the file project alone starts no PostgreSQL.
          globalSetup: ['test/helpers/postgres-server.ts'],
        },
      },
      // Not a test: writes docs/screens.md, and only when asked for (see the file).
      ...(process.env.SVC_SCREEN_CAPTURES
        ? [{ extends: true, test: { name: 'captures', include: ['test/cli/screens/captures.generate.tsx'], env: { SVC_TEST_STORE: 'file' } } }]
        : []),
    ],
  },
});
