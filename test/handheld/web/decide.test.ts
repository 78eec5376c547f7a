import { describe, expect, it } from 'vitest';
import { qrHash } from '../../../src/handheld/qr-hash.js';
import type { DayData, PersonRow } from '../../../src/handheld/handheld.schemas.js';
import { applyDayData, decide, hasTodaysData, localDate, rowKeys } from '../../../src/handheld/web/decide.js';

// The device's offline decision on fixed day data: the box's rules, composed as the box composes them.

const TODAY = '2026-11-26';
const NOW = '2026-11-26T13:00:00.000Z';
const ANA = '3f2b8c1e-4a5d-4e6f-9a0b-1c2d3e4f5a6b';
const BIA = '7a1b2c3d-0000-4000-8000-000000000002';
const CAIO = '7a1b2c3d-0000-4000-8000-000000000003';
const USED = '7a1b2c3d-0000-4000-8000-000000000004';
const OLD = '7a1b2c3d-0000-4000-8000-000000000005';
const CANCELLED = '7a1b2c3d-0000-4000-8000-000000000006';
const GROUP = '20261126-0001';
const GROUP_DONE = '20261126-0002';
const ADDITIONAL = 'ADIC0000000001';

const person = (qr: string, pedido: string, over: Partial<Record<'data' | 'tipo' | 'checkin', string | null>> = {}) =>
  [
    qrHash(qr),
    pedido,
    'Lote 1',
    over.data ?? TODAY,
    over.tipo ?? 'dayuse',
    over.checkin ?? null,
    qr === ANA ? 'Ana' : null,
  ] as PersonRow;

const data: DayData = {
  data_local: TODAY,
  gerado_em: '2026-11-26T12:00:00.000Z',
  cursor: 'c1',
  completo: true,
  pedidos: [
    [GROUP, 'pago', qrHash(GROUP)],
    [GROUP_DONE, 'pago', qrHash(GROUP_DONE)],
    ['20261126-0003', 'cancelado', qrHash('20261126-0003')],
  ],
  pessoas: [
    person(ANA, GROUP),
    person(BIA, GROUP),
    person(CAIO, GROUP, { data: '2026-11-27' }),
    person(USED, GROUP_DONE, { checkin: '2026-11-26T11:00:00.000Z' }),
    person(OLD, GROUP_DONE, { data: '2026-11-25' }),
    person(CANCELLED, '20261126-0003'),
  ],
  adicionais: [[qrHash(ADDITIONAL), GROUP, 2, ['2026-11-26T11:30:00.000Z']]],
  lotes: [['Lote 1', 'Passaporte Dia', 'Adulto']],
};

const day = () => applyDayData(null, data);
const run = (code: string, d = day()) => decide(d, code, qrHash(code), TODAY, NOW);

describe('decide: a person QR', () => {
  it('checks in a paid ticket of today and gives the row its check-in', () => {
    const r = run(ANA);
    expect(r).toMatchObject({ resultado: 'ok', pessoas: 1, nome: 'Ana' });
    expect(r.changes.pessoas).toEqual([[qrHash(ANA), GROUP, 'Lote 1', TODAY, 'dayuse', NOW, 'Ana']]);
  });

  it('refuses what the rules refuse, with their details', () => {
    expect(run(USED)).toMatchObject({
      resultado: 'TICKET_ALREADY_USED',
      detalhes: { qr_code: USED, checkin_em: '2026-11-26T11:00:00.000Z' },
      changes: { pessoas: [], adicionais: [] },
    });
    expect(run(OLD).resultado).toBe('TICKET_EXPIRED');
    expect(run(CAIO).resultado).toBe('TICKET_NOT_VALID_YET');
    expect(run(CANCELLED)).toMatchObject({ resultado: 'TICKET_CANCELLED', detalhes: { status: 'cancelado' } });
    expect(run('nada-disso').resultado).toBe('TICKET_NOT_FOUND');
  });
});

describe('decide: a group QR', () => {
  it('checks in the pending people valid today only', () => {
    const r = run(GROUP);
    expect(r).toMatchObject({ resultado: 'ok', pessoas: 2, detalhes: { total_pessoas: 3 } });
    expect(r.changes.pessoas.map((p) => p[0]).sort()).toEqual([qrHash(ANA), qrHash(BIA)].sort());
  });

  it('refuses a group whose pending people are not valid today, and a cancelled order', () => {
    expect(run(GROUP_DONE)).toMatchObject({ resultado: 'TICKET_EXPIRED', detalhes: { qr_code: GROUP_DONE } });
    expect(run('20261126-0003')).toMatchObject({ resultado: 'TICKET_CANCELLED' });
  });

  it('after a group check-in, the one left is not valid yet; when all are in, already used', () => {
    const d = day();
    applyDayData(d, { ...data, completo: false, pedidos: [], adicionais: [], pessoas: run(GROUP).changes.pessoas });
    expect(run(GROUP, d).resultado).toBe('TICKET_NOT_VALID_YET');
    const caio = person(CAIO, GROUP, { data: '2026-11-27', checkin: NOW });
    applyDayData(d, { ...data, completo: false, pedidos: [], adicionais: [], pessoas: [caio] });
    expect(run(GROUP, d)).toMatchObject({
      resultado: 'TICKET_ALREADY_USED',
      detalhes: { combo_qr_code: GROUP, total_pessoas: 3 },
    });
  });

  it('a group shape the day does not know is not found', () => {
    expect(run('20261126-9999').resultado).toBe('TICKET_NOT_FOUND');
  });
});

describe('decide: an additional', () => {
  it('redeems one unit per scan up to the quantity', () => {
    const d = day();
    const first = run(ADDITIONAL, d);
    expect(first).toMatchObject({ resultado: 'ok', detalhes: { unidade: 2, quantidade: 2 } });
    applyDayData(d, { ...data, completo: false, pedidos: [], pessoas: [], adicionais: first.changes.adicionais });
    expect(run(ADDITIONAL, d)).toMatchObject({
      resultado: 'TICKET_ALREADY_USED',
      detalhes: { quantidade: 2, unidades_utilizadas: 2, checkin_em: NOW },
    });
  });
});

describe('day data', () => {
  it('a delta upserts by key, a whole day replaces', () => {
    const d = day();
    applyDayData(d, {
      ...data,
      completo: false,
      cursor: 'c2',
      pedidos: [[GROUP, 'reembolsado', qrHash(GROUP)]],
      pessoas: [],
      adicionais: [],
    });
    expect(d.cursor).toBe('c2');
    expect(run(ANA, d)).toMatchObject({ resultado: 'TICKET_CANCELLED', detalhes: { status: 'reembolsado' } });
    const whole = applyDayData(d, { ...data, pessoas: [], pedidos: [], adicionais: [] });
    expect(whole.pessoas.size).toBe(0);
  });

  it("needs today's data", () => {
    expect(hasTodaysData(null, TODAY)).toBe(false);
    expect(hasTodaysData(day(), '2026-11-27')).toBe(false);
    expect(hasTodaysData(day(), TODAY)).toBe(true);
  });

  it('today is the date in the park time zone', () => {
    expect(localDate(new Date('2026-11-27T02:30:00Z'), 'America/Sao_Paulo')).toBe('2026-11-26');
    expect(localDate(new Date('2026-11-27T03:30:00Z'), 'America/Sao_Paulo')).toBe('2026-11-27');
  });
});

describe('rowKeys: the rows a decision reads, to read again from storage', () => {
  it("a person QR: the person and their order; a group QR: the order and all its people; an additional's QR", () => {
    const d = day();
    expect(rowKeys(d, ANA, qrHash(ANA))).toEqual({ pessoas: [qrHash(ANA)], pedidos: [GROUP], adicionais: [] });
    expect(rowKeys(d, GROUP, qrHash(GROUP))).toEqual({
      pessoas: [qrHash(GROUP), qrHash(ANA), qrHash(BIA), qrHash(CAIO)],
      pedidos: [GROUP],
      adicionais: [],
    });
    expect(rowKeys(d, ADDITIONAL, qrHash(ADDITIONAL))).toEqual({
      pessoas: [qrHash(ADDITIONAL)],
      pedidos: [],
      adicionais: [qrHash(ADDITIONAL)],
    });
  });
});
