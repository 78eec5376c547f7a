import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOutboxRepo, HELD_FOR_SITE } from '../../src/sync/outbox.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { queryPlan } from '../support/query-plan.js';

// What holds a ticket's push on a site box (docs/site.md, "The cloud"), read on the outbox's own queries with the
// event log written by hand: another box's movement not settled with the cloud, for at most a day; never a claim
// that box did not keep (its compensation names it) nor the compensation itself, which nobody pushes.

const T0 = '2026-11-21T13:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const HOUR = 3600_000;
const QR = 'S-1';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
});
afterEach(() => box.close());

function event(e: { action: 'checkin' | 'estorno'; at: string; siteId?: string; siteBox?: string; undoes?: string }) {
  return Number(
    box.db.sqlite
      .prepare(
        `INSERT INTO events (tenant_id, occurred_at, action, mode, code, qr_code, result, source, site_id, site_box, details)
         VALUES (?, ?, ?, 'qr', ?, ?, 'ok', 'lane', ?, ?, ?)`,
      )
      .run(
        box.tenantId,
        e.at,
        e.action,
        QR,
        QR,
        e.siteId ?? null,
        e.siteBox ?? null,
        e.undoes ? JSON.stringify({ undoes: e.undoes }) : null,
      ).lastInsertRowid,
  );
}
const settledThere = (siteId: string, resultado = 'aceito') =>
  box.db.sqlite
    .prepare('INSERT INTO site_settled (site_id, resultado, settled_at) VALUES (?, ?, ?)')
    .run(siteId, resultado, T0);
const repo = () => createOutboxRepo(box.db, box.tenantId);

describe('a head of line held for another box', () => {
  it('waits for that box’s movement until it is settled, at most a day after it', () => {
    event({ action: 'checkin', at: T0, siteId: 'norte.a1', siteBox: 'norte' });
    event({ action: 'estorno', at: at(HOUR), siteId: 'leste.b1', siteBox: 'leste' });
    const own = event({ action: 'checkin', at: at(2 * HOUR) });
    // The hold ends a day after the newest of them, at the latest.
    expect(repo().heldForSite(QR, own, at(2 * HOUR))).toBe(at(25 * HOUR));
    settledThere('leste.b1');
    expect(repo().heldForSite(QR, own, at(2 * HOUR))).toBe(at(24 * HOUR));
    expect(repo().heldForSite(QR, own, at(24 * HOUR + 1))).toBeNull();
    settledThere('norte.a1');
    expect(repo().heldForSite(QR, own, at(2 * HOUR))).toBeNull();
  });

  it('never waits for a claim undone by its box after a crash, nor for the compensation that undid it', () => {
    event({ action: 'checkin', at: T0, siteId: 'norte.orfa000000001', siteBox: 'norte' });
    event({
      action: 'estorno',
      at: at(60_000),
      siteId: `norte.u${'A'.repeat(30)}`,
      siteBox: 'norte',
      undoes: 'norte.orfa000000001',
    });
    const own = event({ action: 'checkin', at: at(120_000) });
    expect(repo().heldForSite(QR, own, at(120_000))).toBeNull();
    // Another box's movement after them still holds.
    event({ action: 'estorno', at: at(180_000), siteId: 'leste.c1', siteBox: 'leste' });
    const ownLater = event({ action: 'checkin', at: at(240_000) });
    expect(repo().heldForSite(QR, ownLater, at(240_000))).toBe(at(180_000 + 24 * HOUR));
  });

  it('a reversal’s check-in is never a claim that was undone: the box’s own refused one closes it unsent', () => {
    const own = event({ action: 'checkin', at: T0 });
    box.db.sqlite
      .prepare(
        `INSERT INTO sync_push (event_id, tenant_id, chave, action, status, attempts, resultado)
         VALUES (?, ?, ?, 'checkin', 'concluido', 1, 'ja_utilizado_na_nuvem')`,
      )
      .run(own, box.tenantId, QR);
    event({ action: 'checkin', at: at(1000), siteId: 'norte.orfa000000002', siteBox: 'norte' });
    event({ action: 'estorno', at: at(2000), siteId: 'norte.uB', siteBox: 'norte', undoes: 'norte.orfa000000002' });
    const reversal = event({ action: 'estorno', at: at(3000) });
    expect(repo().previousCheckin(QR, reversal)).toMatchObject({ resultado: 'ja_utilizado_na_nuvem' });
  });

  it('reads the other boxes’ movements of that ticket by their index, not the day’s events', () => {
    const plan = queryPlan(box.db, HELD_FOR_SITE, QR, box.tenantId, 10, T0);
    expect(plan).toMatch(/^SEARCH o USING INDEX events_site_ticket \(qr_code=\? AND id<\?\)/);
    expect(plan).not.toMatch(/events_tenant_time|SCAN/);
  });
});
