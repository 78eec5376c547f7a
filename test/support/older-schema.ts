import type { Db } from '../../src/db/open.js';

/**
 * Runs today's upsertOrder (or other writers of orders) on a database migrated only to an older
 * release, to make the data that release would have stored: the column today's code writes and that
 * schema lacks (orders.revision, migration 0012) is there only for the call.
 */
export function onOlderSchema<T>(db: Db, write: () => T): T {
  db.sqlite.exec('ALTER TABLE orders ADD COLUMN revision INTEGER NOT NULL DEFAULT 0');
  try {
    return write();
  } finally {
    db.sqlite.exec('ALTER TABLE orders DROP COLUMN revision');
  }
}
