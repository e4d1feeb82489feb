// Child process for the crash test: many concurrent writers against one store, each printing
// `ack <id>` only after its write() resolved (i.e. once the write is durable). The parent kills
// this process with SIGKILL in the middle of it.
import { openStore } from '../../../daemon/store/index.js';

const [dir, workersArg, thresholdArg] = process.argv.slice(2);
const silent = { info() {}, warn() {}, error() {} };
const store = await openStore({ dataDir: dir, logger: silent, compactThresholdBytes: Number(thresholdArg) });
const workers = Number(workersArg);
let next = 0;

async function worker(): Promise<void> {
  for (;;) {
    const n = next++;
    const id = `s-${process.pid}-${n}`;
    const at = new Date().toISOString();
    await store.write(async (tx) => {
      tx.put('sessions', {
        session_id: id,
        team_id: 'team-1',
        kind: 'task',
        persona: 'default',
        status: 'queued',
        prompt: `prompt ${n} `.repeat(8),
        parent_session_id: null,
        automation_id: null,
        trigger_id: null,
        idempotency_key: null,
        environment_id: null,
        event_row_id: null,
        created_at: at,
        updated_at: at,
        started_at: null,
        completed_at: null,
        last_error: null,
      });
      tx.put('messages', { id: `m-${id}`, session_id: id, role: 'user', content: `hello ${n}`, created_at: at });
    });
    process.stdout.write(`ack ${id}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: workers }, () => worker()));
