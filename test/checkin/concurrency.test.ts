import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { events } from '../support/http.js';

let box: TestBox;
let base: string;
beforeAll(async () => {
  box = await createTestBox();
  base = await box.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => box.close());

const post = (qr: string, terminal: string) =>
  fetch(`${base}/api/v1/api-qrcode-checkin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': box.keys.checkin },
    body: JSON.stringify({ qr_code: qr, terminal }),
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { success: boolean; error?: { code: string } },
  }));

it('lets exactly one of 100 simultaneous posts of the same QR in, over a real socket', async () => {
  box.importOrders([makeOrder({ prefix: 'RACE', people: 1 })]);
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => post('RACE-1', `lane-${i}`)));
  expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  expect(results.filter((r) => r.status === 409 && r.body.error?.code === 'TICKET_ALREADY_USED')).toHaveLength(99);
  const log = events(box);
  expect(log.filter((e) => e.result === 'ok')).toHaveLength(1);
  expect(log.filter((e) => e.result === 'TICKET_ALREADY_USED')).toHaveLength(99);
});

it('keeps distinct QRs independent when they share a commit', async () => {
  box.importOrders([makeOrder({ prefix: 'MANY', people: 50 })]);
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post(`MANY-${i + 1}`, 'x')));
  expect(results.every((r) => r.status === 200)).toBe(true);
});
