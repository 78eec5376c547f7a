import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { ScanNotice } from '../../src/checkin/checkin.service.js';
import { scanLogger } from '../../src/checkin/scan-log.js';
import { codeHash } from '../../src/lib/code-hash.js';
import { silentLog } from '../../src/lib/log.js';
import { bootBox, createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// One log line per scan from any door (issue 13), with nothing a thief or a privacy audit would mind.

let box: TestBox;
afterEach(async () => box?.close());

it('logs one info line per check-in, refusal and reversal, with door, terminal, result, order and latency, never the QR, a name, a CPF, an e-mail or a key', async () => {
  box = await createTestBox();
  const order = makeOrder({ numero: '20261121-0001', prefix: 'LOGQR', dataUso: '2026-11-21', people: 1 });
  box.importOrders([order]);
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  await box.app.close();
  const { app, close: closeBox } = await bootBox({
    db: box.db,
    clock: box.clock,
    logger: pino({ level: 'info' }, sink),
  });
  const call = (method: 'POST' | 'PATCH', body: object) =>
    app.inject({
      method,
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': box.keys.checkin },
      payload: body,
    });

  expect((await call('POST', { qr_code: 'LOGQR-1', terminal: 'catraca-1', operador: 'Op' })).statusCode).toBe(200);
  expect((await call('POST', { qr_code: 'LOGQR-1', terminal: 'catraca-1' })).statusCode).toBe(409);
  expect((await call('PATCH', { qr_code: 'LOGQR-1', terminal: 'balcao' })).statusCode).toBe(200);
  await closeBox();

  const scans = lines.filter((l) => l.modulo === 'portaria');
  expect(
    scans.map((l) => [l.porta, l.terminal, l.acao, l.resultado, l.numero_pedido, l.pessoas, l.codigo_hash, l.level]),
  ).toEqual([
    ['api', 'catraca-1', 'checkin', 'ok', '20261121-0001', 1, codeHash('LOGQR-1'), 30],
    ['api', 'catraca-1', 'checkin', 'TICKET_ALREADY_USED', null, 0, codeHash('LOGQR-1'), 30],
    ['api', 'balcao', 'estorno', 'ok', '20261121-0001', 1, codeHash('LOGQR-1'), 30],
  ]);
  for (const l of scans) expect(typeof l.ms).toBe('number');
  const everything = JSON.stringify(lines);
  const person = order.lotes[0]!.dados[0]! as Record<string, unknown>;
  for (const secret of [
    'LOGQR-1',
    box.keys.checkin,
    order.cliente.email,
    order.cliente.cpf,
    ...Object.values(person).filter((v) => typeof v === 'string' && v.length > 3),
  ])
    expect(everything).not.toContain(String(secret));
});

it('computes nothing of the scan line below info (GATE_LOG_LEVEL=warn): no fields, no hash', () => {
  const calls: unknown[] = [];
  const notice = {
    source: 'api',
    terminal: 't',
    action: 'checkin',
    ms: 1,
    result: { ok: false, code: 'TICKET_NOT_FOUND', details: { qr_code: 'X1' } },
  } as unknown as ScanNotice;
  const log = (level: string) => ({
    ...silentLog,
    info: (obj: object) => void calls.push(obj),
    isLevelEnabled: (l: string) => pino.levels.values[l]! >= pino.levels.values[level]!,
  });
  scanLogger(log('warn'))(notice);
  expect(calls).toEqual([]);
  scanLogger(log('info'))(notice);
  expect(calls).toMatchObject([{ resultado: 'TICKET_NOT_FOUND', codigo_hash: codeHash('X1') }]);
});
