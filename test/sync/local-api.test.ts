import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox } from '../support/box.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, startGate, type Gate } from '../support/sync-gate.js';

let cloud: FakeCloud;
let gate: Gate;
let clock: ReturnType<typeof createTickingClock>;
const DAY = 24 * 3_600_000;

beforeEach(async () => {
  clock = createTickingClock();
  cloud = await startFakeCloud({ clock });
  gate = await startGate(cloud, clock);
  cloud.addOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'A' }),
    makeOrder({ numero: '20261121-0002', prefix: 'B' }),
    makeOrder({ numero: '20261121-0003', prefix: 'C', dataUso: '2026-11-22' }),
  ]);
  await gate.worker.pullNow();
});
afterEach(async () => {
  await gate.close();
  await cloud.close();
});

/** Three conflicts on two days: a double entry and a cancelled order on the 21st, an expired ticket on the 22nd. */
async function makeConflicts() {
  await cloud.checkinAtCloud('A-1');
  clock.advance(60_000);
  await cloud.proxy.down();
  await gate.checkin(gate.keys.checkin, 'A-1');
  await gate.checkin(gate.keys.checkin, 'B-1');
  await gate.checkin(gate.keys.checkin, 'A-2');
  cloud.setStatus('20261121-0002', 'cancelado');
  clock.advance(DAY);
  await gate.checkin(gate.keys.checkin, 'C-1', 'catraca-9', 'joão, "jj"');
  clock.advance(DAY);
  await cloud.proxy.up();
  await gate.worker.pushNow().catch(() => undefined);
  await new Promise((r) => setTimeout(r, 250));
  await gate.worker.pushNow();
}

describe('GET /api/local/conflicts', () => {
  it('lists every event the cloud did not accept, by date and kind, as JSON or CSV', async () => {
    await makeConflicts();
    const all = await gate.local(gate.keys.local, '/api/local/conflicts');
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBe(4);
    expect(
      all.body.data.conflitos.map((c: { qr_code: string; tipo: string; data_local: string }) => [
        c.qr_code,
        c.tipo,
        c.data_local,
      ]),
    ).toEqual([
      ['A-1', 'ja_utilizado_na_nuvem', '2026-11-21'],
      ['B-1', 'cancelado_na_nuvem', '2026-11-21'],
      ['A-2', 'fora_do_prazo', '2026-11-21'],
      ['C-1', 'fora_do_prazo', '2026-11-22'],
    ]);
    expect(all.body.data.conflitos[0]).toMatchObject({
      acao: 'checkin',
      terminal: 'catraca-1',
      operador: 'ana',
      codigo_nuvem: 'TICKET_ALREADY_USED',
      chave_api: 'catraca-1',
    });
    expect(all.body.data.conflitos[0].em_nuvem).toBe(cloud.person('A-1')!.checkin_em);

    const q = async (qs: string) =>
      (await gate.local(gate.keys.local, `/api/local/conflicts?${qs}`)).body.data.conflitos.map(
        (c: { qr_code: string }) => c.qr_code,
      );
    expect(await q('desde=2026-11-22')).toEqual(['C-1']);
    expect(await q('ate=2026-11-21')).toEqual(['A-1', 'B-1', 'A-2']);
    expect(await q('desde=2026-11-21&ate=2026-11-21&tipo=fora_do_prazo')).toEqual(['A-2']);
    expect(await q('tipo=cancelado_na_nuvem')).toEqual(['B-1']);
    expect(await q('desde=2026-11-23')).toEqual([]);

    const csv = await gate.local(gate.keys.local, '/api/local/conflicts?format=csv&tipo=fora_do_prazo');
    expect(csv.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'evento_id,ocorrido_em,data_local,acao,modo,codigo,qr_code,numero_pedido,terminal,operador,chave_api,tipo,codigo_nuvem,mensagem_nuvem,em_nuvem,enviado_em,resolvido_em,tentativas,caixa,outro_evento_id,outro_ocorrido_em,outro_caixa,outro_terminal,outro_operador',
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(',catraca-9,"joão, ""jj""",catraca-1,fora_do_prazo,TICKET_EXPIRED,');
    const byAccept = await gate.local(gate.keys.local, '/api/local/conflicts', { accept: 'text/csv' });
    expect(byAccept.text.trimEnd().split('\r\n')).toHaveLength(5);
  });

  it('answers errors in the spec’s envelope, in Portuguese, and needs local:read', async () => {
    const bad = await gate.local(gate.keys.local, '/api/local/conflicts?tipo=aceito&desde=21/11/2026');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect([...new Set(bad.body.error.details.campos.map((c: { campo: string }) => c.campo))].sort()).toEqual([
      'querystring.desde',
      'querystring.tipo',
    ]);
    expect(
      bad.body.error.details.campos.find((c: { campo: string }) => c.campo === 'querystring.tipo').mensagem,
    ).toMatch(/^use ja_utilizado_na_nuvem/);
    const reversed = await gate.local(gate.keys.local, '/api/local/conflicts?desde=2026-11-22&ate=2026-11-21');
    expect(reversed.body.error.message).toMatch(/posterior a desde/);
    expect((await gate.local(gate.keys.checkin, '/api/local/sync')).body.error.code).toBe('PERMISSION_DENIED');
    const anonymous = await gate.app.inject({ method: 'GET', url: '/api/local/eventos' });
    expect([anonymous.statusCode, anonymous.json().error.code, anonymous.json().error.message]).toEqual([
      401,
      'MISSING_API_KEY',
      'Cabeçalho X-API-Key ausente.',
    ]);
  });
});

describe('GET /api/local/sync', () => {
  it('shows online state, last pull and push, queue depth and counts by result', async () => {
    await makeConflicts();
    expect((await gate.checkin(gate.keys.checkin, 'C-2')).body.error.code).toBe('TICKET_EXPIRED'); // a refusal: never queued
    await cloud.proxy.down();
    const s = (await gate.local(gate.keys.local, '/api/local/sync')).body.data;
    expect(s).toMatchObject({
      nuvem_configurada: true,
      online: true,
      fila: { pendentes: 0 },
      resultados: { aceito: 0, ja_utilizado_na_nuvem: 1, fora_do_prazo: 2, cancelado_na_nuvem: 1, outro: 0 },
    });
    expect(s.ultimo_pull_ok_em).not.toBeNull();
    expect(s.ultimo_push_ok_em).not.toBeNull();
    cloud.addOrders([makeOrder({ numero: '20261123-0001', prefix: 'D', dataUso: '2026-11-23' })]);
    await gate.checkin(gate.keys.checkin, 'A-2'); // already used at the gate: refused, not queued
    await gate.worker.pullNow().catch(() => undefined);
    const offline = (await gate.local(gate.keys.local, '/api/local/sync')).body.data;
    expect(offline.online).toBe(false);
    expect(offline.ultimo_erro.mensagem).toMatch(/conexão recusada/);
  });

  it('a stand-alone box says the cloud is not configured', async () => {
    const box = await createTestBox();
    const res = await box.app.inject({ method: 'GET', url: '/api/local/sync', headers: { 'x-api-key': box.keys.all } });
    expect(res.json().data).toMatchObject({ nuvem_configurada: false, online: null, fila: { pendentes: 0 } });
    await box.close();
  });
});

describe('GET /api/local/eventos', () => {
  it('lists the event log with its cloud result, marked per key; a result that settles later reappears', async () => {
    await gate.checkin(gate.keys.checkin, 'A-1');
    await gate.checkin(gate.keys.checkin, 'NAO-EXISTE');
    const list = async (key: string, qs = 'sincronizado=false') =>
      (await gate.local(key, `/api/local/eventos?${qs}`)).body.data;

    const first = await list(gate.keys.local);
    expect(
      first.eventos.map((e: { qr_code: string; resultado: string; nuvem: { situacao: string } }) => [
        e.qr_code,
        e.resultado,
        e.nuvem.situacao,
      ]),
    ).toEqual([
      ['A-1', 'ok', 'pendente'],
      ['NAO-EXISTE', 'TICKET_NOT_FOUND', 'nao_enviado'],
    ]);
    expect(first.eventos[0]).toMatchObject({
      acao: 'checkin',
      modo: 'qr',
      terminal: 'catraca-1',
      operador: 'ana',
      chave_api: 'catraca-1',
      origem: 'api',
      sincronizado: true,
    });
    expect((await list(gate.keys.local)).eventos).toEqual([]);
    expect((await list(gate.keys.local)).mensagem).toMatch(/Nenhum evento novo/);
    expect((await list(gate.keys.local2, 'sincronizado=false&marcar_sincronizado=false')).eventos).toHaveLength(2);

    await gate.worker.pushNow();
    const settled = await list(gate.keys.local);
    expect(settled.eventos).toHaveLength(1);
    expect(settled.eventos[0]).toMatchObject({
      qr_code: 'A-1',
      nuvem: { situacao: 'aceito', tentativas: 1, codigo: null },
    });
    expect(settled.eventos[0].nuvem.resolvido_em).not.toBeNull();
    const page = await list(gate.keys.local2, 'limit=1&offset=1&marcar_sincronizado=false');
    expect(page.eventos.map((e: { qr_code: string }) => e.qr_code)).toEqual(['NAO-EXISTE']);
  });
});
