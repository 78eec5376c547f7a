import fs from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { gate, openData } from '../cli/run.js';
import { bootBox, tempDir, TZ } from '../support/box.js';

// docs/examples/importacao.json is what docs/cli.md points a park at: it must import as it is.
const EXAMPLE = 'docs/examples/importacao.json';

let dir: string;
beforeEach(() => {
  dir = tempDir('gate-example-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('the example import file imports cleanly into a fresh tenant, and the box serves what it holds', async () => {
  expect((await gate(dir, ['tenants', 'create', 'parque-exemplo', '--name', 'Parque Exemplo'])).code).toBe(0);
  const res = await gate(dir, ['import', '--tenant', 'parque-exemplo', EXAMPLE]);
  expect(res.stderr).toMatch(/^importação concluída: 9 registros/);
  expect(res.code).toBe(0);
  expect(res.stdout).toBe(
    'tenant parque-exemplo:\n' +
      '  combos: 1 criado, 0 atualizados\n' +
      '  disponibilidade: 1 combo, 2 datas\n' +
      '  clientes: 3 criados, 0 atualizados\n' +
      '  pedidos: 4 criados, 0 atualizados\n',
  );
  const key = async (permissions: string) =>
    (await gate(dir, ['keys', 'create', '--tenant', 'parque-exemplo', '--permissions', permissions])).stdout.trim();
  const checkinKey = await key('vouchers:checkin,vouchers:read');
  const combosKey = await key('integration:combos:read');

  const db = openData(dir);
  try {
    // The morning of the example's use date in São Paulo.
    const { app, close: closeBox } = await bootBox({
      db,
      clock: createFixedClock(TZ, '2026-12-05T13:00:00.000Z'),
      logger: false,
    });
    const checkin = (qr_code: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': checkinKey },
        payload: { qr_code, terminal: 'catraca-1' },
      });

    expect((await checkin('EX0001A1')).statusCode).toBe(200);
    expect((await checkin('AD202612050001')).statusCode).toBe(200);
    const family = await checkin('20261205-0003');
    expect(family.statusCode).toBe(200);
    expect(family.json().data.total_checkins).toBe(4);
    const cancelled = await checkin('EX2001A1');
    expect(cancelled.json().error.code).toBe('TICKET_CANCELLED');

    const stock = await app.inject({
      method: 'GET',
      url: '/api/integration/combos/combo-familia/availability?date_from=2026-12-05&date_to=2026-12-06',
      headers: { 'x-integration-key': combosKey },
    });
    expect(stock.statusCode).toBe(200);
    expect(stock.json().data.dates).toHaveLength(2);
    await closeBox();
  } finally {
    db.close();
  }
});
