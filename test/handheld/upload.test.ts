import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_ITEMS } from '../../src/handheld/handheld.schemas.js';
import { qrHash } from '../../src/handheld/qr-hash.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, moveId, pair, signInSupervisor, type Handheld } from '../support/handheld.js';
import { createTickingClock, startGate, type Gate } from '../support/sync-gate.js';

// A handheld's movements reach the box (docs/handheld.md, "Envio da fila"): online the box decides; offline the
// device decided and uploads later; the box records them as facts, classifies what went wrong and pushes the rest
// to the cloud like any door's.

const clock = createTickingClock();
let cloud: FakeCloud;
let gate: Gate;
let device: Handheld;
const TODAY = () => clock.localDate(clock.now());

beforeEach(async () => {
  cloud = await startFakeCloud({ clock });
  gate = await startGate(cloud, clock, { handheld: HANDHELDS });
  cloud.addOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'A', dataUso: TODAY(), people: 3 }),
    makeOrder({ numero: '20261121-0002', prefix: 'B', dataUso: TODAY(), people: 1 }),
  ]);
  await gate.worker.pullNow();
  const box = { ...gate, clock };
  device = await pair(box, await signInSupervisor(box), 'coletor-1');
});
afterEach(async () => {
  await gate.close();
  await cloud.close();
});

const item = (codigo: string, extra: object = {}) => ({
  id: moveId(),
  codigo,
  acao: 'checkin',
  resultado: 'ok',
  decidido_em: new Date(clock.now().getTime() - 60_000).toISOString(),
  operador: 'Bia',
  dados_de: TODAY(),
  ...extra,
});
const upload = (itens: unknown[], enviado_em = clock.now().toISOString()) =>
  device.post('/api/handheld/movimentos', { enviado_em, itens });
const person = (qr: string) =>
  gate.db.sqlite
    .prepare('SELECT checkin_em, checkin_dispositivo, checkin_operador FROM people WHERE qr_code = ?')
    .get(qr);
const conflicts = async (query = '') => (await gate.local(gate.keys.local, `/api/local/conflicts${query}`)).body.data;

describe('online', () => {
  it('the box decides through its check-in service; a retry of the same id gets the first answer and checks in nobody twice', async () => {
    const id = moveId();
    const res = await device.post('/api/handheld/checkin', { id, codigo: 'A-1', operador: 'Bia' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ id, resultado: 'ok', mensagem: 'Check-in realizado.', ja_recebido: false });
    expect(data.pessoas.find((p: unknown[]) => p[5] !== null)[1]).toBe('20261121-0001');
    expect(person('A-1')).toMatchObject({ checkin_dispositivo: 'coletor-1', checkin_operador: 'Bia' });

    // One person let in, though the answer carries the whole order (three people) for the device's copy.
    expect(data.liberados).toEqual([qrHash('A-1')]);
    expect(data.pessoas).toHaveLength(3);
    const retry = await device.post('/api/handheld/checkin', { id, codigo: 'A-1', operador: 'Bia' });
    expect(retry.json().data).toMatchObject({ resultado: 'ok', ja_recebido: true, liberados: [qrHash('A-1')] });
    const again = await device.post('/api/handheld/checkin', { id: moveId(), codigo: 'A-1', operador: 'Bia' });
    expect(again.json().data).toMatchObject({ resultado: 'TICKET_ALREADY_USED', mensagem: 'Ingresso já utilizado.' });
    const events = gate.db.sqlite.prepare("SELECT source, terminal, result FROM events WHERE qr_code = 'A-1'").all();
    expect(events).toEqual([
      { source: 'handheld', terminal: 'coletor-1', result: 'ok' },
      { source: 'handheld', terminal: 'coletor-1', result: 'TICKET_ALREADY_USED' },
    ]);
    // An offline decision uploaded later under the id the box already answered: already received.
    const late = await upload([item('A-1', { id })]);
    expect(late.json().data.itens).toEqual([{ id, estado: 'ja_recebido', classificacao: [] }]);
  });
});

describe('a movement id brought by another key', () => {
  it('with the same code it is the same movement, answered as the first time; with another code, another one', async () => {
    const box = { ...gate, clock };
    const other = await pair(box, await signInSupervisor(box, 'Sofia'), 'coletor-2');
    const used = item('A-2');
    expect((await upload([used])).json().data.itens).toEqual([{ id: used.id, estado: 'aplicado', classificacao: [] }]);
    // The same movement later, with another instant (an online scan whose answer was lost, decided again on the
    // device), under another device's key: already received, nothing recorded again.
    const later = { ...used, decidido_em: clock.now().toISOString() };
    const again = await other.post('/api/handheld/movimentos', {
      enviado_em: clock.now().toISOString(),
      itens: [later],
    });
    expect(again.json().data.itens).toEqual([{ id: used.id, estado: 'ja_recebido', classificacao: [] }]);
    const online = await other.post('/api/handheld/checkin', { id: used.id, codigo: 'A-2', operador: 'Bia' });
    expect(online.json().data).toMatchObject({ resultado: 'ok', ja_recebido: true });
    // The same id for another code: not the same movement; recorded as the other device's own.
    const clash = { ...item('A-3'), id: used.id };
    const own = await other.post('/api/handheld/movimentos', { enviado_em: clock.now().toISOString(), itens: [clash] });
    expect(own.json().data.itens).toEqual([{ id: used.id, estado: 'aplicado', classificacao: [] }]);
    const events = gate.db.sqlite
      .prepare("SELECT qr_code, terminal FROM events WHERE source = 'handheld' ORDER BY id")
      .all();
    expect(events).toEqual([
      { qr_code: 'A-2', terminal: 'coletor-1' },
      { qr_code: 'A-3', terminal: 'coletor-2' },
    ]);
    // A double found on the first upload is the answer of every repeat.
    expect((await gate.checkin(gate.keys.checkin, 'B-1', 'pista-1')).status).toBe(200);
    const double = item('B-1');
    expect((await upload([double])).json().data.itens[0].classificacao).toEqual(['duplo_handheld']);
    const repeat = await other.post('/api/handheld/movimentos', {
      enviado_em: clock.now().toISOString(),
      itens: [double],
    });
    expect(repeat.json().data.itens).toEqual([
      { id: double.id, estado: 'ja_recebido', classificacao: ['duplo_handheld'] },
    ]);
  });
});

describe('online, the same id twice at once', () => {
  it('a retry that arrives while the first try is being decided gets its answer; one check-in', async () => {
    const id = moveId();
    const [a, b] = await Promise.all(
      [0, 1].map(() => device.post('/api/handheld/checkin', { id, codigo: 'A-3', operador: 'Bia' })),
    );
    const answers = [a!.json().data, b!.json().data];
    expect(answers.map((x) => x.resultado)).toEqual(['ok', 'ok']);
    expect(answers.map((x) => x.ja_recebido).sort()).toEqual([false, true]);
    const n = gate.db.sqlite.prepare("SELECT count(*) AS n FROM events WHERE qr_code = 'A-3'").get();
    expect(n).toEqual({ n: 1 });
  });
});

describe('uploads', () => {
  it('are applied as facts at their instant, once by id; refusals are kept for the event log; the cloud gets the check-ins', async () => {
    const first = item('A-1');
    const refused = item('B-1', { resultado: 'TICKET_ALREADY_USED' });
    const res = await upload([first, refused, first]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.itens).toEqual([
      { id: first.id, estado: 'aplicado', classificacao: [] },
      { id: refused.id, estado: 'aplicado', classificacao: [] },
      { id: first.id, estado: 'ja_recebido', classificacao: [] },
    ]);
    expect(person('A-1')).toEqual({
      checkin_em: first.decidido_em,
      checkin_dispositivo: 'coletor-1',
      checkin_operador: 'Bia',
    });
    expect(person('B-1')).toMatchObject({ checkin_em: null });
    const again = await upload([first, refused]);
    expect(again.json().data.itens.map((i: { estado: string }) => i.estado)).toEqual(['ja_recebido', 'ja_recebido']);
    expect(gate.db.sqlite.prepare("SELECT count(*) AS n FROM events WHERE source = 'handheld'").get()).toEqual({
      n: 2,
    });

    await gate.worker.pushNow();
    expect(cloud.appliedCounts().get('checkin:A-1')).toBe(1);
    expect(cloud.appliedCounts().get('checkin:B-1')).toBeUndefined();
  });

  it('a ticket already let in at the box is a duplo_handheld with both entries, not pushed twice', async () => {
    expect((await gate.checkin(gate.keys.checkin, 'A-2', 'pista-1')).status).toBe(200);
    const offline = item('A-2');
    const res = await upload([offline]);
    expect(res.json().data.itens[0]).toEqual({ id: offline.id, estado: 'aplicado', classificacao: ['duplo_handheld'] });
    const [conflict] = (await conflicts('?tipo=duplo_handheld')).conflitos;
    expect(conflict).toMatchObject({
      tipo: 'duplo_handheld',
      qr_code: 'A-2',
      terminal: 'coletor-1',
      outro_terminal: 'pista-1',
    });
    expect(person('A-2')).toMatchObject({ checkin_dispositivo: 'pista-1' });
    await gate.worker.pushNow();
    expect(cloud.appliedCounts().get('checkin:A-2')).toBe(1);
    expect(cloud.answers().filter((a) => a.qr_code === 'A-2')).toEqual([
      { action: 'checkin', qr_code: 'A-2', result: 'ok' },
    ]);
    const csv = await gate.local(gate.keys.local, '/api/local/conflicts?format=csv');
    expect(csv.text).toContain('duplo_handheld');
  });

  it('an order cancelled meanwhile, an unknown code and a clock off by more than 2 minutes are classified', async () => {
    cloud.setStatus('20261121-0002', 'cancelado');
    await gate.worker.pullNow();
    const cancelled = item('B-1');
    const unknown = item('NINGUEM-1');
    const res = await upload([cancelled, unknown]);
    expect(res.json().data.itens).toEqual([
      { id: cancelled.id, estado: 'aplicado', classificacao: ['cancelado_no_handheld'] },
      { id: unknown.id, estado: 'aplicado', classificacao: ['desconhecido_handheld'] },
    ]);
    // Admitted on the device: the visitor went through, so the box records the check-in.
    expect(person('B-1')).toMatchObject({ checkin_em: cancelled.decidido_em });
    const unknownEvent = gate.db.sqlite.prepare("SELECT result FROM events WHERE code = 'NINGUEM-1'").get();
    expect(unknownEvent).toEqual({ result: 'TICKET_NOT_FOUND' });

    const skewed = item('A-3');
    const late = await upload([skewed], new Date(clock.now().getTime() - 3 * 60_000).toISOString());
    expect(late.json().data.itens[0].classificacao).toEqual(['relogio_handheld']);
    const kinds = (await conflicts()).conflitos.map((c: { tipo: string }) => c.tipo).sort();
    expect(kinds).toEqual(['cancelado_no_handheld', 'desconhecido_handheld', 'relogio_handheld']);
    const metrics = await gate.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('tipo="desconhecido_handheld"} 1');
  });

  it('a group the device let in with nobody of the order valid that day is recorded as unknown here', async () => {
    cloud.addOrders([makeOrder({ numero: '20261121-0003', prefix: 'T', dataUso: '2026-11-30', people: 2 })]);
    await gate.worker.pullNow();
    const group = item('20261121-0003');
    const res = await upload([group]);
    expect(res.json().data.itens[0]).toEqual({
      id: group.id,
      estado: 'aplicado',
      classificacao: ['desconhecido_handheld'],
    });
    expect(gate.db.sqlite.prepare("SELECT result FROM events WHERE code = '20261121-0003'").all()).toEqual([
      { result: 'TICKET_NOT_FOUND' },
    ]);
    expect(person('T-1')).toMatchObject({ checkin_em: null });
  });

  it('a malformed item is refused alone with a 4xx code; the others are applied', async () => {
    const good = item('A-1');
    const res = await upload([{ id: 'curto' }, good, { ...item('A-2'), resultado: 'talvez' }, 42]);
    expect(res.statusCode).toBe(200);
    const answers = res.json().data.itens;
    expect(answers[1]).toEqual({ id: good.id, estado: 'aplicado', classificacao: [] });
    for (const i of [0, 2, 3]) {
      expect(answers[i]).toMatchObject({ estado: 'recusado', erro: { code: 'ITEM_INVALIDO' } });
      expect(answers[i].erro.message).toMatch(/^Movimento inválido: /);
    }
    expect(person('A-2')).toMatchObject({ checkin_em: null });
  });

  it('too many items or too large a body are refused whole, nothing applied', async () => {
    const many = Array.from({ length: MAX_UPLOAD_ITEMS + 1 }, () => item('A-1'));
    const res = await upload(many);
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'MOVIMENTOS_DEMAIS', details: { limite: 500, recebidos: 501 } });
    const big = await upload([{ ...item('A-1'), operador: 'x'.repeat(1_100_000) }]);
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    for (const body of [
      {},
      { enviado_em: 'ontem', itens: [item('A-1')] },
      { enviado_em: clock.now().toISOString(), itens: [] },
    ]) {
      const bad = await device.post('/api/handheld/movimentos', body);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect(person('A-1')).toMatchObject({ checkin_em: null });
  });
});
