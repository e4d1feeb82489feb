// Keeps finished scans in the store's skill_scans table: a commit never changes, so a second
// scan of it needs no file downloads.
import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import type { ScanCache } from './scanner.js';

export function storeScanCache(store: Store, clock: Clock): ScanCache {
  return {
    async get(key) {
      const row = await store.read((tx) => tx.get('skill_scans', key));
      return row ? { skills: row.skills, skipped: row.skipped } : undefined;
    },
    async put(key, value) {
      await store.write((tx) => {
        tx.put('skill_scans', { id: key, ...value, created_at: clock().toISOString() });
      });
    },
  };
}
