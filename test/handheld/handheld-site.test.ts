import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';
import { HANDHELDS, moveId, pair, signInSupervisor } from '../support/handheld.js';
import { startHub, siteLinkOf, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// A handheld paired with one box of a site (docs/handheld.md): what it decided offline reaches every box through the
// hub, as a movement decided without the site, and a second entry of the same ticket at another box is classified
// there as the site's double entry.

const BOXES = ['norte', 'sul'];
const ORDER = makeOrder({ numero: '20261121-0001', prefix: 'H', people: 3 });
let hub: TestHub;
const boxes: TestBox[] = [];

beforeEach(async () => {
  hub = await startHub({ boxes: BOXES });
});
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((b) => b.close()));
  await hub.close();
});

async function siteBox(name: string) {
  const box = await createTestBox({ siteLink: siteLinkOf(hub, name, BOXES), handheld: HANDHELDS });
  boxes.push(box);
  box.importOrders([ORDER]);
  await eventually('site mode', () => box.status.site()?.modo === 'site');
  return box;
}

const person = (box: TestBox, qr: string) =>
  box.db.sqlite.prepare('SELECT checkin_em, checkin_dispositivo FROM people WHERE qr_code = ?').get(qr) as {
    checkin_em: string | null;
    checkin_dispositivo: string | null;
  };

describe('handhelds on a site', () => {
  it("an uploaded offline check-in reaches the other boxes; the other box's own entry of it is a duplo_no_site", async () => {
    const [norte, sul] = [await siteBox('norte'), await siteBox('sul')];
    const device = await pair(norte, await signInSupervisor(norte), 'coletor-1');
    // The device was offline: sul let H-2 in at its lane meanwhile, and sul does not know of the device's entries.
    await hub.stop();
    await eventually('local mode', () => sul.status.site()?.modo === 'local' && norte.status.site()?.modo === 'local');
    expect((await checkin(sul, { qr_code: 'H-2', terminal: 'sul-1' })).status).toBe(200);
    const decidedAt = new Date(norte.clock.now().getTime() - 5 * 60_000).toISOString();
    const item = (codigo: string) => ({
      id: moveId(),
      codigo,
      acao: 'checkin',
      resultado: 'ok',
      decidido_em: decidedAt,
      operador: 'Bia',
      dados_de: '2026-11-21',
    });
    const res = await device.post('/api/handheld/movimentos', {
      enviado_em: norte.clock.nowIso(),
      itens: [item('H-1'), item('H-2')],
    });
    expect(res.json().data.itens.map((i: { estado: string }) => i.estado)).toEqual(['aplicado', 'aplicado']);
    await hub.restart();
    await eventually('H-1 at sul', () => person(sul, 'H-1').checkin_em === decidedAt, 30_000);
    expect(person(sul, 'H-1').checkin_dispositivo).toBe('coletor-1');
    await eventually(
      'merged',
      () => sul.status.site()?.conflitos === 1 && norte.status.site()?.conflitos === 1,
      30_000,
    );
    const feed = await sul.app.inject({
      method: 'GET',
      url: '/api/local/conflicts?tipo=duplo_no_site',
      headers: { 'x-api-key': sul.keys.all },
    });
    expect(feed.json().data.conflitos[0]).toMatchObject({ qr_code: 'H-2', tipo: 'duplo_no_site' });
    const terminals = [feed.json().data.conflitos[0].terminal, feed.json().data.conflitos[0].outro_terminal].sort();
    expect(terminals).toEqual(['coletor-1', 'sul-1']);
  });
});
