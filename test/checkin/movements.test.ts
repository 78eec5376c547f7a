import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckinService } from '../../src/checkin/checkin.service.js';
import type { MovePolicy } from '../../src/checkin/movement.settings.js';
import { openDatabase } from '../../src/db/open.js';
import { createOutboxRepo } from '../../src/sync/outbox.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, reverse } from '../support/http.js';

// Entries, exits and re-entries through the box's own doors (movement.flows.ts), on a real SQLite file.

let box: TestBox;
afterEach(async () => box?.close());

const entry = (over: Partial<MovePolicy> = {}): MovePolicy => ({
  direction: 'entrada',
  area: 'parque',
  reentrada: 'nao',
  saidaSemEntrada: 'liberar',
  capacity: null,
  ...over,
});
const exit = (over: Partial<MovePolicy> = {}): MovePolicy => entry({ direction: 'saida', ...over });
const lane = () => ({ tenantId: box.tenantId, apiKeyId: null, keyName: null, source: 'lane' });
const scan = (code: string, policy: MovePolicy, terminal = 'pista') =>
  box.checkin.move({ code, terminal, operator: 'op' }, lane(), policy);
const person = (qr: string) =>
  box.db.sqlite.prepare('select checkin_em from people where qr_code = ?').get(qr) as { checkin_em: string | null };
const moves = () =>
  box.db.sqlite
    .prepare("select action, code, result, details from events where action != 'checkin' or result != 'ok' order by id")
    .all() as { action: string; code: string; result: string; details: string | null }[];
const inside = (area = 'parque') => box.checkin.occupancy(box.tenantId).find((o) => o.area === area)?.inside ?? 0;

async function setup(people = 3) {
  box = await createTestBox();
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'FAM', people })]);
}

describe('movements', () => {
  it('an exit lets out someone who came in, records an exit, never a check-in; occupancy follows', async () => {
    await setup();
    expect(await scan('FAM-1', entry())).toMatchObject({
      ok: true,
      movement: 'checkin',
      people: [{ qrCode: 'FAM-1' }],
    });
    expect(inside()).toBe(1);
    expect(await scan('FAM-1', exit())).toMatchObject({
      ok: true,
      movement: 'saida',
      withoutEntry: false,
      people: [{ qrCode: 'FAM-1' }],
    });
    expect(inside()).toBe(0);
    expect(person('FAM-1').checkin_em).not.toBeNull();
    expect(moves()).toEqual([
      { action: 'saida', code: 'FAM-1', result: 'ok', details: JSON.stringify({ area: 'parque' }) },
    ]);
  });

  it('an exit without an entry today: let out and recorded by default, refused with SEM_ENTRADA when the lane says negar; never a check-in', async () => {
    await setup();
    expect(await scan('FAM-2', exit())).toMatchObject({ ok: true, movement: 'saida', withoutEntry: true, people: [] });
    expect(await scan('NOBODY', exit())).toMatchObject({ ok: true, target: 'unknown', withoutEntry: true });
    expect(await scan('FAM-3', exit({ saidaSemEntrada: 'negar' }))).toMatchObject({
      ok: false,
      code: 'SEM_ENTRADA',
      details: { qr_code: 'FAM-3', area: 'parque' },
    });
    expect([person('FAM-2').checkin_em, person('FAM-3').checkin_em]).toEqual([null, null]);
    expect(moves().map((m) => [m.action, m.code, m.result, m.details && JSON.parse(m.details)])).toEqual([
      ['saida', 'FAM-2', 'ok', { area: 'parque', sem_entrada: true }],
      ['saida', 'NOBODY', 'ok', { area: 'parque', sem_entrada: true }],
      ['saida', 'FAM-3', 'SEM_ENTRADA', { qr_code: 'FAM-3', area: 'parque' }],
    ]);
    expect(inside()).toBe(0);
  });

  it('re-entry: refused as already used by default, granted and recorded as a re-entry with mesmo_dia', async () => {
    await setup();
    await scan('FAM-1', entry());
    await scan('FAM-1', exit());
    expect(await scan('FAM-1', entry())).toMatchObject({
      ok: false,
      code: 'TICKET_ALREADY_USED',
      details: { qr_code: 'FAM-1' },
    });
    expect(await scan('FAM-1', entry({ reentrada: 'mesmo_dia' }))).toMatchObject({ ok: true, movement: 'reentrada' });
    expect(inside()).toBe(1);
    // Inside again: a second entry is refused whatever the policy.
    expect(await scan('FAM-1', entry({ reentrada: 'mesmo_dia' }))).toMatchObject({
      ok: false,
      code: 'TICKET_ALREADY_USED',
    });
  });

  it('a group QR moves its whole group through an exit and back in', async () => {
    await setup(3);
    expect(await scan('20261121-0001', entry())).toMatchObject({
      ok: true,
      target: 'group',
      movement: 'checkin',
      totalPessoas: 3,
    });
    expect(inside()).toBe(3);
    const out = await scan('20261121-0001', exit());
    expect(out).toMatchObject({ ok: true, target: 'group', movement: 'saida', totalPessoas: 3 });
    expect(out.ok && out.people.map((p) => p.qrCode)).toEqual(['FAM-1', 'FAM-2', 'FAM-3']);
    expect(inside()).toBe(0);
    expect(await scan('20261121-0001', entry({ reentrada: 'mesmo_dia' }))).toMatchObject({
      ok: true,
      movement: 'reentrada',
      people: [{}, {}, {}],
    });
    expect(inside()).toBe(3);
  });

  it('a full area refuses entries with CAPACITY_REACHED until someone leaves', async () => {
    await setup(3);
    const full = entry({ capacity: 2, reentrada: 'mesmo_dia' });
    await scan('FAM-1', full);
    await scan('FAM-2', full);
    expect(await scan('FAM-3', full)).toMatchObject({
      ok: false,
      code: 'CAPACITY_REACHED',
      details: { area: 'parque', capacidade: 2, ocupacao: 2 },
    });
    expect(person('FAM-3').checkin_em).toBeNull();
    // A group that does not fit is refused whole.
    expect(await scan('20261121-0001', full)).toMatchObject({ ok: false, code: 'CAPACITY_REACHED' });
    await scan('FAM-1', exit());
    expect(await scan('FAM-3', full)).toMatchObject({ ok: true, movement: 'checkin' });
    expect(await scan('FAM-1', full)).toMatchObject({ ok: false, code: 'CAPACITY_REACHED' });
  });

  it('areas: a lane group inside the park counts on its own; a check-in enters the park', async () => {
    await setup(2);
    await scan('FAM-1', entry());
    expect(await scan('FAM-1', entry({ area: 'piscina' }))).toMatchObject({ ok: true, movement: 'entrada' });
    expect(await scan('FAM-1', entry({ area: 'piscina' }))).toMatchObject({ ok: false, code: 'TICKET_ALREADY_USED' });
    expect([inside('parque'), inside('piscina')]).toEqual([1, 1]);
    await scan('FAM-1', exit({ area: 'piscina' }));
    expect([inside('parque'), inside('piscina')]).toEqual([1, 0]);
  });

  it("a same-day reversal ends the person's movements; occupancy is the same after a restart", async () => {
    await setup(3);
    for (const qr of ['FAM-1', 'FAM-2', 'FAM-3']) await scan(qr, entry());
    await scan('FAM-2', entry({ area: 'piscina' }));
    expect((await reverse(box, { qr_code: 'FAM-2' })).status).toBe(200);
    expect([inside('parque'), inside('piscina')]).toEqual([2, 0]);
    // An HTTP check-in (the spec's) is an entry into the park too.
    expect((await checkin(box, { qr_code: 'FAM-2' })).status).toBe(200);
    expect(inside('parque')).toBe(3);
    await scan('FAM-3', exit());
    const again = openDatabase(path.join(box.dir, 'gate.db'));
    try {
      const restarted = createCheckinService({ db: again, clock: box.clock });
      expect(restarted.occupancy(box.tenantId)).toEqual(box.checkin.occupancy(box.tenantId));
      expect(restarted.occupancy(box.tenantId)).toEqual([{ area: 'parque', inside: 2 }]);
    } finally {
      again.close();
    }
  });

  it('two lanes racing one exit: one exit, one let out without entry; occupancy drops once', async () => {
    await setup(1);
    await scan('FAM-1', entry());
    const results = await Promise.all([scan('FAM-1', exit(), 'saida-1'), scan('FAM-1', exit(), 'saida-2')]);
    expect(results.map((r) => r.ok && r.withoutEntry).sort()).toEqual([false, true]);
    expect(inside()).toBe(0);
    expect(moves().filter((m) => m.details === JSON.stringify({ area: 'parque' }))).toHaveLength(1);
  });

  it("movements stay local: only check-ins and reversals go to the cloud's outbox", async () => {
    await setup(2);
    await scan('FAM-1', entry());
    await scan('FAM-1', exit());
    await scan('FAM-1', entry({ reentrada: 'mesmo_dia' }));
    await scan('FAM-2', exit());
    const outbox = createOutboxRepo(box.db, box.tenantId);
    expect(outbox.enqueue(500)).toBe(1);
    expect(box.db.sqlite.prepare('select action, chave from sync_push').all()).toEqual([
      { action: 'checkin', chave: 'FAM-1' },
    ]);
  });
});
