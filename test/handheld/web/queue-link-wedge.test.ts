import { describe, expect, it } from 'vitest';
import type { UploadItem } from '../../../src/handheld/handheld.schemas.js';
import { createLink } from '../../../src/handheld/web/link.js';
import { batches, settle } from '../../../src/handheld/web/queue.js';
import { tokenFrom } from '../../../src/handheld/web/token.js';
import { createWedge, inField } from '../../../src/handheld/web/wedge.js';

const item = (n: number): UploadItem => ({
  id: `mv-${String(n).padStart(6, '0')}`,
  codigo: `c${n}`,
  acao: 'checkin',
  resultado: 'ok',
  decidido_em: new Date(Date.UTC(2026, 10, 26, 13, 0, 0, n)).toISOString(),
  operador: 'Rita',
  dados_de: '2026-11-26',
});

describe('the queue', () => {
  it('is uploaded oldest first, at most 500 per request', () => {
    const items = Array.from({ length: 1001 }, (_, i) => item(1000 - i));
    const parts = batches(items);
    expect(parts.map((p) => p.length)).toEqual([500, 500, 1]);
    expect(parts[0]![0]!.id).toBe('mv-000000');
    expect(parts[2]![0]!.id).toBe('mv-001000');
  });

  it('drops an item only on its own answer; refused items go aside; unanswered ones stay', () => {
    const sent = [item(1), item(2), item(3), item(4)];
    const s = settle(sent, [
      { id: 'mv-000001', estado: 'aplicado', classificacao: [] },
      { id: 'mv-000002', estado: 'ja_recebido', classificacao: ['duplo_handheld'] },
      { id: 'mv-000003', estado: 'recusado', classificacao: [], erro: { code: 'ITEM_INVALIDO', message: 'ruim' } },
      { id: null, estado: 'recusado', classificacao: [] },
    ]);
    expect(s.done).toEqual(['mv-000001', 'mv-000002']);
    expect(s.refused).toEqual([{ item: item(3), erro: 'ITEM_INVALIDO: ruim' }]);
    expect(s.kept).toEqual([item(4)]);
  });
});

describe('online and offline', () => {
  it('goes offline after two failed scans in a row, or one failed heartbeat', () => {
    const link = createLink();
    expect(link.failed('scan')).toBe('online');
    expect(link.answered('scan')).toBe('online');
    expect(link.failed('scan')).toBe('online');
    expect(link.failed('scan')).toBe('offline');
    expect(createLink().failed('heartbeat')).toBe('offline');
  });

  it('comes back after three heartbeats answered in a row', () => {
    const link = createLink('offline');
    link.answered('heartbeat');
    link.answered('heartbeat');
    expect(link.failed('heartbeat')).toBe('offline');
    link.answered('heartbeat');
    link.answered('heartbeat');
    expect(link.answered('scan')).toBe('offline');
    expect(link.answered('heartbeat')).toBe('online');
  });
});

describe('the keyboard wedge', () => {
  const type = (w: ReturnType<typeof createWedge>, text: string, end: string, now: number) => {
    for (const key of text) w.key({ key }, now);
    return w.key({ key: end }, now);
  };

  it('ends a code on Enter or Tab, ignores modifiers and named keys', () => {
    const w = createWedge();
    expect(type(w, 'ABC', 'Enter', 0)).toEqual({ code: 'ABC', repeat: false });
    w.key({ key: 'Shift' }, 10);
    w.key({ key: 'v', ctrlKey: true }, 10);
    expect(type(w, 'XYZ', 'Tab', 10)).toEqual({ code: 'XYZ', repeat: false });
    expect(w.key({ key: 'Enter' }, 20)).toBeNull();
  });

  it('counts the same code seen again within 2 s of the last time as the same read', () => {
    const w = createWedge();
    expect(type(w, 'ABC', 'Enter', 0)).toEqual({ code: 'ABC', repeat: false });
    expect(type(w, 'ABC', 'Enter', 1999)).toEqual({ code: 'ABC', repeat: true });
    expect(w.read('ABC', 1500).repeat).toBe(true);
    expect(type(w, 'DEF', 'Enter', 2100)).toEqual({ code: 'DEF', repeat: false });
    // Another code between two reads does not make the second a new one: two tickets held up together.
    expect(w.read('ABC', 2200).repeat).toBe(true);
    expect(w.read('ABC', 4300).repeat).toBe(false);
  });

  it('slides the window: a QR held before the camera for a minute is one read', () => {
    const w = createWedge();
    const reads = Array.from({ length: 400 }, (_, i) => w.read('HELD', i * 150));
    expect(reads.filter((r) => !r.repeat)).toHaveLength(1);
    expect(w.read('HELD', 399 * 150 + 2000).repeat).toBe(false);
  });

  it('leaves keys typed in a field alone', () => {
    expect(inField({ tagName: 'INPUT' } as unknown as EventTarget)).toBe(true);
    expect(inField({ tagName: 'BODY' } as unknown as EventTarget)).toBe(false);
    expect(inField(null)).toBe(false);
  });
});

describe('the pairing code', () => {
  const TOKEN = 'WvMgVK_YIm4cAGcPEZFyfAsOZ8LnYaS-';
  it('is read from the console QR URL, its fragment, or given bare', () => {
    expect(tokenFrom(`https://box.parque/m/#parear=${TOKEN}`)).toBe(TOKEN);
    expect(tokenFrom(`#parear=${TOKEN}`)).toBe(TOKEN);
    expect(tokenFrom(`  ${TOKEN} `)).toBe(TOKEN);
    expect(tokenFrom('#parear=curto')).toBeNull();
  });
});
