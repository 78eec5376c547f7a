import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// orders.revision: a new random value each time upsertOrder writes the order (its row, lots, people
// or additionals), from any connection (the box's sync, `gate import` beside it). The check-in
// answer keeps what the order fixes in memory per revision (src/orders/pedido-cache.ts); random, not a
// counter, so that an order deleted and made again under the same id never matches an old entry.
// Orders written before this migration have 0 until their next write; the memory starts empty.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, ['ALTER TABLE orders ADD COLUMN revision INTEGER NOT NULL DEFAULT 0']);
}
