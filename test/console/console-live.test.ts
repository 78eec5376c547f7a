import http from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SHOWN_SCANS } from '../../src/console/live.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// The consoles' live stream on a real listener: what one door does, every console sees.

let box: TestBox;
let url: string;

beforeEach(async () => {
  box = await createTestBox({ consolePingMs: 200 });
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'HOJE', dataUso: '2026-11-21', people: 2 })]);
  url = await box.app.listen({ host: '127.0.0.1', port: 0 });
});
afterEach(() => box.close());

async function signIn(nome: string, papel: 'atendente' | 'supervisor') {
  await createOperator(box.db, {
    tenantId: box.tenantId,
    nome,
    papel,
    segredo: '4321',
    nowIso: box.clock.nowIso(),
  });
  const res = await fetch(`${url}/api/console/entrar`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ nome, segredo: '4321', tenant: 'parque' }),
  });
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** An EventSource as the page opens it: the events received so far, and a wait for one of a kind. */
function stream(cookie: string) {
  const events: { event: string; data: unknown }[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  let chunks = 0;
  const req = http.get(`${url}/api/console/eventos`, { headers: { cookie, accept: 'text/event-stream' } }, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      chunks++;
      buffer += chunk;
      let at;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
        waiters.splice(0).forEach((w) => w());
      }
    });
    res.on('end', () => {
      ended = true;
      waiters.splice(0).forEach((w) => w());
    });
  });
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`stream: no ${what}; got ${JSON.stringify(events)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
  };
  return {
    events,
    chunks: () => chunks,
    until,
    next: (event: string) =>
      until(() => events.some((e) => e.event === event), event).then(() => events.find((e) => e.event === event)!.data),
    ended: () => until(() => ended, 'end'),
    close: () => req.destroy(),
  };
}

it('every console sees a scan of another door at once; alarms reach supervisors only; closing the box ends the stream', async () => {
  const attendant = stream(await signIn('Ana', 'atendente'));
  const supervisor = stream(await signIn('Sofia', 'supervisor'));
  await attendant.next('pronto');
  await supervisor.next('pronto');

  const res = await fetch(`${url}/api/v1/api-qrcode-checkin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': box.keys.checkin },
    body: JSON.stringify({ qr_code: 'HOJE-1', terminal: 'catraca-2' }),
  });
  expect(res.status).toBe(200);
  for (const s of [attendant, supervisor])
    expect(await s.next('leitura')).toMatchObject({
      resultado: 'liberado',
      codigo: 'HOJE-1',
      porta: 'api',
      terminal: 'catraca-2',
      numero_pedido: '20261121-0001',
      lote: expect.objectContaining({ data_uso: '2026-11-21', nome_lote: expect.any(String) }),
    });

  box.db.sqlite
    .prepare(
      "INSERT INTO lane_events (tenant_id, occurred_at, lane, kind, code, details) VALUES (?, ?, 'catraca-1', 'carona', NULL, NULL)",
    )
    .run(box.tenantId, box.clock.nowIso());
  expect(await supervisor.next('alarme')).toMatchObject({ tipo: 'carona', pista: 'catraca-1' });
  expect(attendant.events.map((e) => e.event)).not.toContain('alarme');

  const closing = box.app.close();
  await Promise.all([attendant.ended(), supervisor.ended(), closing]);
});

const scanCodes = (events: { event: string; data: unknown }[]) =>
  events.filter((e) => e.event === 'leitura').map((e) => (e.data as { codigo: string }).codigo);

it('a steady flow of scans reaches an open console in a few writes, every scan once and in order', async () => {
  box.importOrders([
    makeOrder({ numero: '20261121-0002', prefix: 'FLOW', dataUso: '2026-11-21', people: SHOWN_SCANS }),
  ]);
  const console = stream(await signIn('Rita', 'atendente'));
  await console.next('pronto');
  const before = console.chunks();
  for (let i = 1; i <= SHOWN_SCANS; i++) {
    const res = await fetch(`${url}/api/v1/api-qrcode-checkin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': box.keys.checkin },
      body: JSON.stringify({ qr_code: `FLOW-${i}`, terminal: 'catraca-3' }),
    });
    expect(res.status).toBe(200);
  }
  await console.until(() => scanCodes(console.events).length >= SHOWN_SCANS, `${SHOWN_SCANS} leituras`);
  expect(scanCodes(console.events)).toEqual(Array.from({ length: SHOWN_SCANS }, (_, i) => `FLOW-${i + 1}`));
  expect(console.events.map((e) => e.event)).not.toContain('pedidos_lidos');
  // One write per scan would be 20 chunks: the scans of each 100 ms go out together.
  expect(console.chunks() - before).toBeLessThan(SHOWN_SCANS / 2);
  console.close();
});

it('a rush in one commit: the console gets the newest scans it shows and the order of the others, in one write', async () => {
  box.importOrders([makeOrder({ numero: '20261121-0003', prefix: 'RUSH', dataUso: '2026-11-21', people: 120 })]);
  const console = stream(await signIn('Rita', 'atendente'));
  await console.next('pronto');
  const before = console.chunks();
  const lane = { tenantId: box.tenantId, apiKeyId: null, keyName: 'catraca', source: 'lane' };
  const replies = await Promise.all(
    Array.from({ length: 120 }, (_, i) => box.checkin.checkIn({ code: `RUSH-${i + 1}`, terminal: 'catraca-4' }, lane)),
  );
  expect(replies.every((r) => r.batch === false && r.result.ok)).toBe(true);
  await console.next('pedidos_lidos');
  expect(scanCodes(console.events)).toEqual(Array.from({ length: SHOWN_SCANS }, (_, i) => `RUSH-${i + 101}`));
  expect(console.events.find((e) => e.event === 'pedidos_lidos')!.data).toEqual(['20261121-0003']);
  expect(console.chunks() - before).toBe(1);
  console.close();
});

it('a disabled operator’s stream ends at the next ping', async () => {
  const cookie = await signIn('Caio', 'atendente');
  const s = stream(cookie);
  await s.next('pronto');
  box.db.sqlite.prepare("UPDATE operators SET disabled_at = ? WHERE nome = 'Caio'").run(box.clock.nowIso());
  await s.ended();
});

it('a stream without a session is refused in the envelope', async () => {
  const res = await fetch(`${url}/api/console/eventos`);
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SESSAO_INVALIDA');
});
