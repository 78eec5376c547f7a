import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PedidoInput } from '../../src/orders/order.schemas.js';
import { launchBrowser } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { handheldBox, moveId, pair, type Handheld } from '../support/handheld.js';
import { prng } from '../support/prng.js';
import type { TestBox } from '../support/box.js';

// One table of 1,000 rule cases, decided twice: by the box (POST /api/handheld/checkin, its one check-in service on
// a real SQLite file) and by the handheld's offline module (src/handheld/web/decide.ts, bundled with the box's pure
// rules as the app bundles them) in Chromium, on the day data the box serves. The answers must be the same: result,
// refusal details, and how many people a check-in lets in.

const ROOT = path.resolve(import.meta.dirname, '../..');
const CASES = 1000;
const TODAY = '2026-11-21';
const DAYS = ['2026-11-20', TODAY, '2026-11-22'];
const TIPOS = ['dayuse', 'evento', 'dia_unico', 'dayuse_sem_data'] as const;

interface Case {
  code: string;
  order: PedidoInput;
  /** People's state before the scan: qr → checked in at, or reversed. */
  before: { qr: string; checkin_em: string | null; estornado_em: string | null }[];
  units: { qr: string; count: number } | undefined;
}

function makeCases(): Case[] {
  const rand = prng(24);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  return Array.from({ length: CASES }, (_, i) => {
    const numero = `20261121-${String(i + 1).padStart(4, '0')}`;
    const prefix = `R${i}`;
    const people = 1 + Math.floor(rand() * 3);
    const status = rand() < 0.7 ? 'pago' : pick(['cancelado', 'reembolsado'] as const);
    const base = makeOrder({ numero, prefix, people, status, tipo: pick(TIPOS), dataUso: pick(DAYS) });
    // A second lot dated today (or not) mixes dates within a group.
    const second =
      rand() < 0.5 ? makeOrder({ prefix: `${prefix}b`, people: 1, tipo: pick(TIPOS), dataUso: pick(DAYS) }) : undefined;
    const lots = [...base.lotes, ...(second?.lotes ?? [])];
    // The device holds the day's orders only (docs/handheld.md): an order with no lot of the day gets one, so every
    // case is one the device can decide (a code of another day's order is "not in today's data" there).
    if (!lots.some((l) => l.data_uso === TODAY || l.tipo_ingresso === 'dayuse_sem_data'))
      lots.push(...makeOrder({ prefix: `${prefix}c`, people: 1, dataUso: TODAY }).lotes);
    const additionalQr = `A${String(i).padStart(13, '0')}`;
    const quantidade = 1 + Math.floor(rand() * 3);
    const withAdditional = rand() < 0.35;
    const order: PedidoInput = {
      ...base,
      lotes: lots,
      ...(withAdditional
        ? {
            adicionais: [
              {
                adicional_id: `ad-${i}`,
                nome: 'Pulseira',
                quantidade,
                preco_unitario: 10,
                subtotal: 10 * quantidade,
                pessoa_ingresso_id: null,
                combo_id: null,
                combo_item_id: null,
                is_brinde: false,
                codigo_integracao: `P${i}`,
                adicional_qr_code: additionalQr,
              },
            ],
          }
        : {}),
    };
    const qrs = order.lotes.flatMap((l) => l.dados.map((d) => String(d.qr_code)));
    const before = qrs.map((qr) => {
      const r = rand();
      if (r < 0.25) return { qr, checkin_em: `${TODAY}T12:0${Math.floor(rand() * 10)}:00.000Z`, estornado_em: null };
      if (r < 0.35) return { qr, checkin_em: '2026-11-20T15:00:00.000Z', estornado_em: null };
      if (r < 0.45) return { qr, checkin_em: null, estornado_em: `${TODAY}T12:30:00.000Z` };
      return { qr, checkin_em: null, estornado_em: null };
    });
    const kind = rand();
    const code =
      kind < 0.5
        ? pick(qrs)
        : kind < 0.75
          ? numero
          : kind < 0.9 && withAdditional
            ? additionalQr
            : pick([`NADA-${i}`, `A${String(9_000_000 + i).padStart(13, '0')}`, `20261121-${9000 + (i % 999)}`]);
    const units = withAdditional ? { qr: additionalQr, count: Math.floor(rand() * (quantidade + 1)) } : undefined;
    return { code, order, before, units };
  });
}

let box: TestBox;
let device: Handheld;
let browser: Browser;
const cases = makeCases();

beforeAll(async () => {
  const started = await handheldBox();
  box = started.box;
  box.importOrders(cases.map((c) => c.order));
  const { sqlite } = box.db;
  const person = sqlite.prepare('UPDATE people SET checkin_em = ?, estornado_em = ? WHERE qr_code = ?');
  const unit = sqlite.prepare(
    `INSERT INTO additional_redemptions (additional_id, checkin_em)
     SELECT id, ? FROM additionals WHERE adicional_qr_code = ?`,
  );
  sqlite.transaction(() => {
    for (const c of cases) {
      for (const b of c.before) person.run(b.checkin_em, b.estornado_em, b.qr);
      for (let n = 0; n < (c.units?.count ?? 0); n++) unit.run(`${TODAY}T11:0${n}:00.000Z`, c.units!.qr);
    }
  })();
  device = await pair(box, started.supervisor, 'coletor-tabela');
  await box.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await box?.close();
});

/** The app's offline module and hash, bundled from src/ as the app bundles them. */
async function bundledModule(): Promise<string> {
  const out = await build({
    stdin: {
      contents:
        "export { applyDayData, decide } from './src/handheld/web/decide';\nexport { qrHash } from './src/handheld/web/qr-hash';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'handheld',
    target: 'es2020',
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

interface Decided {
  resultado: string;
  detalhes?: Record<string, unknown>;
  pessoas: number;
}

describe('a table of 1,000 rule cases', () => {
  it('gives the same results through the box and through the bundled module in Chromium', async () => {
    const dayData = (await device.get('/api/handheld/dados')).json().data;
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(box.app.server.address() as { port: number }).port}/health`);
    await page.addScriptTag({ content: await bundledModule() });
    const now = box.clock.nowIso();
    const onDevice = await page.evaluate(
      async ({ data, codes, today, at }) => {
        const h = (
          globalThis as unknown as {
            handheld: typeof import('../../src/handheld/web/decide.js') &
              typeof import('../../src/handheld/web/qr-hash.js');
          }
        ).handheld;
        const day = h.applyDayData(null, data);
        const answers = [];
        for (const code of codes) {
          const d = h.decide(day, code, await h.qrHash(code), today, at);
          answers.push({
            resultado: d.resultado,
            detalhes: d.detalhes,
            pessoas: d.changes.pessoas.length + d.changes.adicionais.length,
          });
        }
        return answers;
      },
      { data: dayData, codes: cases.map((c) => c.code), today: TODAY, at: now },
    );
    await page.close();

    const atBox: Decided[] = [];
    for (const c of cases) {
      const res = await device.post('/api/handheld/checkin', { id: moveId('tabela'), codigo: c.code, operador: 'Tab' });
      expect(res.statusCode, res.body).toBe(200);
      const a = res.json().data as {
        resultado: string;
        detalhes?: Record<string, unknown>;
        pessoas: unknown[][];
        adicionais: unknown[][];
      };
      const moved =
        a.pessoas.filter((p) => p[5] === now).length +
        a.adicionais.filter((u) => (u[3] as string[]).includes(now)).length;
      atBox.push({ resultado: a.resultado, ...(a.detalhes ? { detalhes: a.detalhes } : {}), pessoas: moved });
    }

    const results = new Map<string, number>();
    cases.forEach((c, i) => {
      const box = atBox[i]!;
      const dev = onDevice[i]!;
      results.set(box.resultado, (results.get(box.resultado) ?? 0) + 1);
      const label = `case ${i}: ${c.code}`;
      expect(dev.resultado, label).toBe(box.resultado);
      if (box.resultado === 'ok') expect(dev.pessoas, label).toBe(box.pessoas);
      else expect(dev.detalhes, label).toEqual(box.detalhes);
    });
    // The table covers every outcome a handheld can meet, each many times.
    for (const code of [
      'ok',
      'TICKET_ALREADY_USED',
      'TICKET_EXPIRED',
      'TICKET_NOT_VALID_YET',
      'TICKET_CANCELLED',
      'TICKET_NOT_FOUND',
    ])
      expect(results.get(code) ?? 0, code).toBeGreaterThan(20);
  });
});
