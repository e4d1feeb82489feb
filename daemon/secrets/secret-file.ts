// Secrets the daemon generates on first start and reuses after: files of mode 0600 in the data
// folder, created exclusively so two processes can never write different values.
import { randomBytes } from 'node:crypto';
import { chmod, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function readOrCreateSecret(dataDir: string, fileName: string, generate: () => string): Promise<string> {
  const path = join(dataDir, fileName);
  try {
    const handle = await open(path, 'wx', 0o600);
    const value = generate();
    try {
      await handle.writeFile(value + '\n');
      await handle.sync();
    } finally {
      await handle.close();
    }
    return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  await chmod(path, 0o600).catch(() => undefined);
  const value = (await readFile(path, 'utf8')).trim();
  if (!value) throw new Error(`${path} is empty; delete it to have a new one generated`);
  return value;
}

export const generateAdminToken = () => 'svc_admin_' + randomBytes(30).toString('base64url').replace(/[-_]/g, 'x');
export const generateMasterKey = () => randomBytes(32).toString('hex');
