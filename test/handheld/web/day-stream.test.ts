import { afterEach, describe, expect, it } from 'vitest';
import type { DayData } from '../../../src/handheld/handheld.schemas.js';
import { createDayReader, readDay, type DayKind, type DaySink } from '../../../src/handheld/web/day-stream.js';
import type { TestBox } from '../../support/box.js';
import { makeOrder } from '../../support/fixtures.js';
import { checkin } from '../../support/http.js';
import { handheldBox, HANDHELDS, pair, type Handheld } from '../../support/handheld.js';
import { prng } from '../../support/prng.js';

// The app reads the day data as it arrives (src/handheld/web/day-stream.ts), in the lines the box sends
// (src/handheld/day-data.ts): whatever pieces the bytes come in, it gives the rows the whole answer holds, and what
// it is not sure of (an error, an answer cut short) it does not take for a day.

let box: TestBox;
afterEach(() => box.close());

const ORDERS = 150; // three of the box's slices
const TRICKY = 'Ana "Zé"\n],"pedidos":[\nção ]}}';

async function setUp(): Promise<Handheld> {
  const started = await handheldBox({ handheld: { ...HANDHELDS, names: true } });
  box = started.box;
  const orders = Array.from({ length: ORDERS }, (_, i) =>
    makeOrder({ numero: `20261121-${String(i + 1).padStart(4, '0')}`, prefix: `S${i}`, dataUso: '2026-11-21' }),
  );
  orders[0]!.lotes[0]!.dados[0]!.Nome = TRICKY;
  orders[1] = {
    ...orders[1]!,
    adicionais: [
      {
        adicional_id: 'a1',
        nome: 'Pulseira',
        quantidade: 2,
        preco_unitario: 10,
        subtotal: 20,
        pessoa_ingresso_id: null,
        combo_id: null,
        combo_item_id: null,
        is_brinde: false,
        codigo_integracao: 'P1',
        adicional_qr_code: 'ADIC0000000001',
      },
    ],
  };
  box.importOrders(orders);
  return pair(box, started.supervisor, 'coletor-1');
}

const KINDS: DayKind[] = ['pessoas', 'pedidos', 'adicionais', 'lotes'];

/** A sink that keeps what it is given. */
function keeper() {
  const rows = Object.fromEntries(KINDS.map((k) => [k, [] as unknown[]])) as Record<DayKind, unknown[]>;
  const texts: string[] = [];
  const sink: DaySink = {
    rows: (_head, kind, list) => void rows[kind].push(...list),
    text: (_head, text) => void texts.push(text),
  };
  return { sink, rows, texts, count: () => KINDS.reduce((n, k) => n + rows[k].length, 0) };
}

/** Feeds `body` in pieces of 1–`max` characters; what came out, and how many rows before the last piece. */
function readInPieces(body: string, max: number, seed: number) {
  const kept = keeper();
  const reader = createDayReader(kept.sink);
  const random = prng(seed);
  let before = 0;
  for (let at = 0; at < body.length;) {
    const size = 1 + Math.floor(random() * max);
    if (at + size >= body.length) before = kept.count();
    reader.push(body.slice(at, at + size));
    at += size;
  }
  return { end: reader.end(), rows: kept.rows, text: kept.texts.join(''), before };
}

describe('the day data read as it arrives', () => {
  it('gives the rows of the whole answer, whatever pieces it comes in, and most of them before its end', async () => {
    const device = await setUp();
    expect((await checkin(box, { qr_code: 'ADIC0000000001' })).status).toBe(200);
    const body = (await device.get('/api/handheld/dados')).body;
    const whole = JSON.parse(body).data as DayData;
    expect(whole.pessoas).toHaveLength(2 * ORDERS);
    expect(whole.adicionais).toHaveLength(1);
    for (const [max, seed] of [
      [7, 1],
      [300, 2],
      [4096, 3],
      [body.length, 4],
    ] as const) {
      const read = readInPieces(body, max, seed);
      expect(read.text).toBe(body);
      const { data_local, gerado_em, cursor, completo } = whole;
      expect(read.end).toEqual({ head: { data_local, gerado_em, cursor, completo } });
      for (const k of KINDS) expect(read.rows[k], `${k}, pieces of up to ${max}`).toEqual(whole[k]);
      if (max < 4096) expect(read.before).toBeGreaterThanOrEqual(whole.pessoas.length);
    }
    expect(whole.pessoas.some((r) => r[6] === TRICKY)).toBe(true);
  });

  it('reads a delta the same way, and through a Response whose bytes split a character', async () => {
    const device = await setUp();
    const first = JSON.parse((await device.get('/api/handheld/dados')).body).data as DayData;
    expect((await checkin(box, { qr_code: 'S0-1' })).status).toBe(200);
    const body = (await device.get(`/api/handheld/dados?desde=${encodeURIComponent(first.cursor)}`)).body;
    const delta = JSON.parse(body).data as DayData;
    expect(delta.completo).toBe(false);
    const bytes = new TextEncoder().encode(body);
    const cut = bytes.indexOf(0xa7); // inside "ç" (0xc3 0xa7)
    expect(cut).toBeGreaterThan(0);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut));
        c.enqueue(bytes.slice(cut));
        c.close();
      },
    });
    const kept = keeper();
    const read = await readDay(new Response(stream), kept.sink);
    expect(read.head?.completo).toBe(false);
    expect(kept.texts.join('')).toBe(body);
    expect(kept.rows.pessoas).toEqual(delta.pessoas);
  });

  it('takes nothing for a day from an answer that is not in lines, or that stops before its end', async () => {
    const device = await setUp();
    const body = (await device.get('/api/handheld/dados')).body;
    const error = JSON.stringify({ success: false, error: { code: 'DISPOSITIVO_REVOGADO', message: 'revogado' } });
    const single = JSON.stringify(JSON.parse(body));
    for (const text of [error, single]) {
      const kept = keeper();
      const reader = createDayReader(kept.sink);
      reader.push(text);
      expect(reader.end()).toEqual({ text, head: null });
      expect([kept.count(), kept.texts.length]).toEqual([0, 0]);
    }
    const cut = createDayReader(keeper().sink);
    cut.push(body.slice(0, body.lastIndexOf('\n')));
    expect(() => cut.end()).toThrow('incompleta');
  });
});
