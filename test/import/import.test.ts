import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { count, gate, openData, writeImportFile } from '../cli/run.js';
import { bootBox, tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { availability, client, combo, orders } from './data.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('gate-import-');
  expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const importFile = (content: unknown, opts: { tenant?: string; tty?: boolean } = {}) =>
  gate(dir, ['import', '--tenant', opts.tenant ?? 'parque', writeImportFile(dir, content)], { tty: opts.tty ?? false });

/** The box serving the data dir's database, with the clock on 2026-11-21 10:00 in São Paulo. */
async function serveData() {
  const db = openData(dir);
  const { app, close: closeBox } = await bootBox({
    db,
    clock: createFixedClock(TZ, '2026-11-21T13:00:00.000Z'),
    logger: false,
  });
  await app.ready();
  const key = async (permissions: string) =>
    (await gate(dir, ['keys', 'create', '--tenant', 'parque', '--permissions', permissions])).stdout.trim();
  return {
    db,
    app,
    key,
    async close() {
      await closeBox();
      db.close();
    },
  };
}

describe('gate import', () => {
  it('imports orders, combos, availability and clients, which the box then serves', async () => {
    const res = await importFile({
      pedidos: orders(3),
      combos: [combo()],
      disponibilidade: [availability()],
      clientes: [client(1), client(2)],
    });

    expect(res.code).toBe(0);
    expect(res.stdout).toContain('tenant parque:\n');
    expect(res.stdout).toContain('pedidos: 3 criados, 0 atualizados');
    expect(res.stdout).toContain('combos: 1 criado, 0 atualizados');
    expect(res.stdout).toContain('disponibilidade: 1 combo, 2 datas');
    expect(res.stdout).toContain('clientes: 2 criados, 0 atualizados');

    const box = await serveData();
    try {
      const checkinKey = await box.key('vouchers:checkin,vouchers:read');
      const checkin = await box.app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': checkinKey },
        payload: { qr_code: 'QA-2-1' },
      });
      expect(checkin.statusCode).toBe(200);
      expect(checkin.json().data.pedido.numero_pedido).toBe('20261121-0002');

      const vouchers = await box.app.inject({
        method: 'GET',
        url: '/api/v1/api-vouchers?marcar_sincronizado=false',
        headers: { 'x-api-key': checkinKey },
      });
      expect(vouchers.json().data.pedidos.map((p: { numero_pedido: string }) => p.numero_pedido)).toEqual([
        '20261121-0001',
        '20261121-0002',
        '20261121-0003',
      ]);

      const combosKey = await box.key('integration:combos:read');
      const stock = await box.app.inject({
        method: 'GET',
        url: '/api/integration/combos/combo-casal/availability?date_from=2026-11-21&date_to=2026-11-22',
        headers: { 'x-integration-key': combosKey },
      });
      expect(stock.statusCode).toBe(200);
      expect(stock.json().data.dates).toHaveLength(2);
      expect(count(box.db, 'clients')).toBe(2);
    } finally {
      await box.close();
    }
  });

  it('is idempotent: importing the same file again updates in place and keeps check-ins', async () => {
    const file = { pedidos: orders(2), combos: [combo()], disponibilidade: [availability()], clientes: [client(1)] };
    expect((await importFile(file)).code).toBe(0);
    const box = await serveData();
    try {
      const key = await box.key('vouchers:checkin');
      const first = await box.app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': key },
        payload: { qr_code: 'QA-1-1' },
      });
      expect(first.statusCode).toBe(200);

      const again = await importFile(file);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('tenant parque:');
      expect(again.stdout).toContain('pedidos: 0 criados, 2 atualizados');
      expect(again.stdout).toContain('combos: 0 criados, 1 atualizado');
      expect(again.stdout).toContain('clientes: 0 criados, 1 atualizado');
      expect([
        count(box.db, 'orders'),
        count(box.db, 'people'),
        count(box.db, 'combos'),
        count(box.db, 'combo_stock'),
        count(box.db, 'clients'),
      ]).toEqual([2, 4, 1, 2, 1]);

      const second = await box.app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': key },
        payload: { qr_code: 'QA-1-1' },
      });
      expect(second.statusCode).toBe(409);
      expect(second.json().error.code).toBe('TICKET_ALREADY_USED');
    } finally {
      await box.close();
    }
  });

  it('applies a newer status and the order shows up again as not synchronised', async () => {
    const paid = makeOrder({ numero: '20261121-0001', prefix: 'ST' });
    expect((await importFile({ pedidos: [paid] })).code).toBe(0);
    const box = await serveData();
    try {
      const key = await box.key('vouchers:read');
      const list = async () =>
        (
          await box.app.inject({
            method: 'GET',
            url: '/api/v1/api-vouchers?sincronizado=false',
            headers: { 'x-api-key': key },
          })
        ).json().data.pedidos as { status: string }[];
      expect((await list()).map((p) => p.status)).toEqual(['pago']);
      expect(await list()).toEqual([]);

      const res = await importFile({ pedidos: [{ ...paid, status: 'cancelado' }] });
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('pedidos: 0 criados, 1 atualizado (1 com novo status)');
      expect((await list()).map((p) => p.status)).toEqual(['cancelado']);
    } finally {
      await box.close();
    }
  });

  it('writes the availability after the combos even when the file lists it first', async () => {
    const res = await importFile({ disponibilidade: [availability()], clientes: [client(1)], combos: [combo()] });
    expect(res.code).toBe(0);
    const db = openData(dir);
    try {
      expect(count(db, 'combo_stock')).toBe(2);
      expect(count(db, 'clients')).toBe(1);
    } finally {
      db.close();
    }
  });

  it('prints a summary line off a terminal and a progress bar redrawn in place on one', async () => {
    const plain = await importFile({ pedidos: orders(3) });
    expect(plain.stderr).toMatch(/^importação concluída: 3 registros, [\d,]+ MB em [\d,]+ s\n$/);

    const tty = await importFile({ pedidos: orders(3) }, { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain('\r\x1b[2Kvalidando');
    expect(tty.stderr).toContain('\r\x1b[2Kgravando');
    expect(tty.stderr).toMatch(/100% [\d,]+\/[\d,]+ MB · 3 registros/);
    expect(tty.stderr).not.toContain('importação concluída');
  });

  it('accepts an empty object and says there was nothing to import', async () => {
    const res = await importFile({});
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('nenhum registro no arquivo');
  });
});
