// Child process for the lock tests: takes the data-folder lock, says so, and holds it until
// killed (or until stdin closes, then releases it cleanly).
import { acquireDataDirLock } from '../../../daemon/store/lock.js';

const dir = process.argv[2];
try {
  const release = await acquireDataDirLock(dir);
  process.stdout.write(`locked ${process.pid}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void release().then(() => process.exit(0));
  });
} catch (err) {
  process.stdout.write(`refused ${(err as Error).message}\n`);
  process.exit(3);
}
