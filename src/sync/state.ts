import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { first, run } from '../db/query.js';
import type { SyncStateTable } from '../db/schema.js';
import { CloudUnavailableError } from './cloud-envelopes.js';

export type SyncActivity = 'pull' | 'push' | 'refresh' | 'full';

const COLUMN: Record<SyncActivity, keyof SyncStateTable> = {
  pull: 'last_pull_ok_at',
  push: 'last_push_ok_at',
  refresh: 'last_refresh_ok_at',
  full: 'last_full_refresh_ok_at',
};

export interface SyncState {
  /**
   * The cloud answered (any usable answer, refusals of items included): online. Call inside the caller's transaction or
   * alone.
   */
  succeeded(activity: SyncActivity): void;
  /** A call failed as a whole: offline (unless it was the worker stopping); any other error is only recorded. */
  failed(error: unknown): void;
  online(): boolean | null;
  read(): SyncStateTable | undefined;
}

/** Online/offline is derived from the last call's outcome and kept in sync_state, so it outlives a restart. */
export function createSyncState(db: Db, tenantId: number, clock: Clock): SyncState {
  const k = db.kysely;
  const ensure = () =>
    run(
      db,
      k.insertInto('sync_state').orIgnore().values({
        tenant_id: tenantId,
        online: null,
        last_contact_at: null,
        last_pull_ok_at: null,
        last_push_ok_at: null,
        last_refresh_ok_at: null,
        last_full_refresh_ok_at: null,
        last_error: null,
        last_error_at: null,
      }),
    );
  ensure();
  let online = first(db, k.selectFrom('sync_state').select('online').where('tenant_id', '=', tenantId))?.online ?? null;

  return {
    succeeded(activity) {
      const now = clock.nowIso();
      online = 1;
      run(
        db,
        k
          .updateTable('sync_state')
          .set({ online: 1, last_contact_at: now, [COLUMN[activity]]: now })
          .where('tenant_id', '=', tenantId),
      );
    },
    failed(error) {
      if (error instanceof CloudUnavailableError && error.kind === 'aborted') return;
      // Only a failed call says the link is down; a local error (a bug, a full disk) says nothing about it.
      const linkDown = error instanceof CloudUnavailableError;
      if (linkDown) online = 0;
      const message = error instanceof Error ? error.message : String(error);
      const last = { last_error: message.slice(0, 500), last_error_at: clock.nowIso() };
      run(
        db,
        k
          .updateTable('sync_state')
          .set(linkDown ? { ...last, online: 0 } : last)
          .where('tenant_id', '=', tenantId),
      );
    },
    online: () => (online === null ? null : online === 1),
    read: () => first(db, k.selectFrom('sync_state').selectAll().where('tenant_id', '=', tenantId)),
  };
}
