// The store's public face: open one, lock its folder, and the types services program against.
export { openStore, JournalStore, StoreClosedError, type OpenStoreOptions, type StoreStats } from './journal-store.js';
export { acquireDataDirLock, DataDirLockedError } from './lock.js';
export { StoreCorruptError } from './snapshot-file.js';
export { SchemaVersionError, SCHEMA_VERSION } from './migrations.js';
export type { StoreLogger } from './logger.js';
export type { Store, ReadTx, WriteTx, IndexQuery } from './store.js';
