import { upsertClient } from '../clients/clients.repo.js';
import { ComboDataError, upsertAvailability, upsertCombo } from '../combos/combos.repo.js';
import type { Combo } from '../combos/combo.schemas.js';
import { inList, run } from '../db/query.js';
import type { Rejected } from './cloud-client.js';
import { addDays } from '../clock.js';
import type { PullDeps } from './pull.js';
import { recordRejects } from './rejects.js';

const COMBO_PAGE = 100; // the cloud's maximum (8)
const CLIENT_PAGE = 500; // the cloud's maximum (8)
/** Clients stored per commit: about a millisecond of work. */
const CLIENT_PIECE = 50;

/** Combos with their availability, and clients: the same schemas and upserts as `gate import`. */
export function createCatalogPuller({ db, clock, client, tenantId, state, tuning }: PullDeps) {
  const k = db.kysely;
  const tx = <T>(work: () => T): T => db.sqlite.transaction(work).immediate();

  return {
    /**
     * Every active combo (pages of 100), then each one's availability from today to `days` ahead.
     * A combo the complete list no longer has was retired in the cloud: it is retired here too.
     */
    async combos(days: number, signal: AbortSignal): Promise<number> {
      const combos: Combo[] = [];
      const rejected: Rejected[] = [];
      for (let offset = 0; ; offset += COMBO_PAGE) {
        const page = await client.listCombos({ limit: COMBO_PAGE, offset }, signal);
        combos.push(...page.items);
        rejected.push(...page.rejected);
        if (page.received < COMBO_PAGE) break;
      }
      const now = clock.nowIso();
      tx(() => {
        for (const c of combos) upsertCombo(db, tenantId, c, now);
        const listed = [...combos.map((c) => c.id), ...rejected.map((r) => r.ref)];
        run(
          db,
          k
            .updateTable('combos')
            .set({ ativo: 0, updated_at: now })
            .where('tenant_id', '=', tenantId)
            .where('ativo', '=', 1)
            .where('combo_id', 'not in', inList(listed)),
        );
        recordRejects(
          db,
          tenantId,
          'combo',
          rejected,
          combos.map((c) => c.id),
          now,
        );
      });

      const from = clock.today();
      const to = addDays(from, days);
      for (const c of combos) {
        const availability = await client.comboAvailability(c.id, from, to, signal);
        tx(() => {
          try {
            upsertAvailability(db, tenantId, availability, clock.nowIso());
            recordRejects(db, tenantId, 'disponibilidade', [], [c.id], clock.nowIso());
          } catch (error) {
            if (!(error instanceof ComboDataError)) throw error;
            recordRejects(db, tenantId, 'disponibilidade', [{ ref: c.id, reason: error.message }], [], clock.nowIso());
          }
        });
      }
      tx(() => state.succeeded('refresh'));
      return combos.length;
    },

    /**
     * Clients: `incremental` reads sincronizado=false with marking, from offset 0 until an empty page;
     * otherwise every client is read without marking (the night refresh, which also recovers a
     * marked page whose reply was lost).
     */
    async clients(incremental: boolean, signal: AbortSignal): Promise<number> {
      let stored = 0;
      for (let offset = 0, pages = 0; pages < tuning.maxPages; pages++) {
        const page = await client.listClients(
          { ...(incremental ? { sincronizado: false } : {}), marcar: incremental, limit: CLIENT_PAGE, offset },
          signal,
        );
        const now = clock.nowIso();
        // In pieces as background work of the write queue, like the orders (pull.ts): a scan never waits for a page.
        for (let i = 0; i === 0 || i < page.items.length; i += CLIENT_PIECE) {
          const piece = page.items.slice(i, i + CLIENT_PIECE);
          const last = i + CLIENT_PIECE >= page.items.length;
          await db.writes.run(
            () => {
              for (const c of piece) upsertClient(db, tenantId, c, now);
              recordRejects(
                db,
                tenantId,
                'cliente',
                i === 0 ? page.rejected : [],
                piece.map((c) => c.id),
                now,
              );
              if (last) state.succeeded(incremental ? 'pull' : 'full');
            },
            { background: true },
          );
        }
        stored += page.items.length;
        if (incremental ? page.received === 0 : page.received < CLIENT_PAGE) break;
        if (!incremental) offset += page.received;
      }
      return stored;
    },
  };
}

export type CatalogPuller = ReturnType<typeof createCatalogPuller>;
