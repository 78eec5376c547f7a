import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, reverse } from '../support/http.js';
import { siteLinkOf, startHub, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// The site link inside two real boxes (in this process) on one real hub (Debian's nats-server): one winner per
// ticket, every movement applied on the other box, local decisions when the hub is away, and the merge after.

let hub: TestHub;
const boxes: TestBox[] = [];
beforeEach(async () => {
  hub = await startHub({ boxes: ['norte', 'sul', 'leste'] });
});
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((b) => b.close()));
  await hub.close();
});

async function siteBox(name: string, casTimeoutMs = 150) {
  const box = await createTestBox({
    siteLink: siteLinkOf(hub, name, ['norte', 'sul', 'leste'], casTimeoutMs),
  });
  boxes.push(box);
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 })]);
  await eventually('site mode', () => box.status.site()?.modo === 'site');
  return box;
}

const person = (box: TestBox, qr: string) =>
  box.db.sqlite.prepare('select checkin_em, checkin_dispositivo from people where qr_code = ?').get(qr) as {
    checkin_em: string | null;
    checkin_dispositivo: string | null;
  };

describe('the site link', () => {
  it('one QR at two boxes at once: exactly one grant; the other refuses with the winner’s time', async () => {
    const [a, b] = [await siteBox('norte'), await siteBox('sul')];
    for (const qr of ['S-1', 'S-2', 'S-3']) {
      const [ra, rb] = await Promise.all([
        checkin(a, { qr_code: qr, terminal: 'norte-1' }),
        checkin(b, { qr_code: qr, terminal: 'sul-1' }),
      ]);
      const statuses = [ra.status, rb.status].sort();
      expect(statuses).toEqual([200, 409]);
      const loser = ra.status === 409 ? ra : rb;
      const winner = ra.status === 200 ? a : b;
      expect(loser.body.error.code).toBe('TICKET_ALREADY_USED');
      expect(loser.body.error.details.checkin_em).toBe(person(winner, qr).checkin_em);
      await eventually('applied', () => person(a, qr).checkin_em !== null && person(b, qr).checkin_em !== null);
      expect(person(a, qr)).toEqual(person(b, qr));
    }
    // Every one was decided with the site: none alone, nothing left to publish.
    for (const box of [a, b]) expect(box.status.site()).toMatchObject({ decisoes_sem_site_hoje: 0, pendentes: 0 });
  });

  it('a check-in at one box is refused at the other from its own database, and reversed there too', async () => {
    const [a, b] = [await siteBox('norte'), await siteBox('sul')];
    expect((await checkin(a, { qr_code: 'S-1', terminal: 'norte-1' })).status).toBe(200);
    await eventually('applied at sul', () => person(b, 'S-1').checkin_em !== null);
    expect(person(b, 'S-1').checkin_dispositivo).toBe('norte-1');
    // sul's event log shows norte's check-in, as norte's, for norte to push.
    const log = await b.app.inject({
      url: '/api/local/eventos?marcar_sincronizado=false',
      headers: { 'x-api-key': b.keys.all },
    });
    expect(log.json().data.eventos).toEqual([
      expect.objectContaining({
        acao: 'checkin',
        qr_code: 'S-1',
        terminal: 'norte-1',
        caixa: 'norte',
        nuvem: expect.objectContaining({ situacao: 'outra_caixa' }),
      }),
    ]);
    const again = await checkin(b, { qr_code: 'S-1', terminal: 'sul-1' });
    expect(again.status).toBe(409);
    expect((await reverse(b, { qr_code: 'S-1', terminal: 'sul-1' })).status).toBe(200);
    await eventually('reversal applied at norte', () => person(a, 'S-1').checkin_em === null);
    expect((await checkin(a, { qr_code: 'S-1', terminal: 'norte-1' })).status).toBe(200);
  });

  it('with the hub away each box decides alone at once; after the merge a double entry is duplo_no_site on both', async () => {
    const [a, b] = [await siteBox('norte'), await siteBox('sul')];
    await hub.stop();
    await eventually('local mode', () => a.status.site()?.modo === 'local' && b.status.site()?.modo === 'local');
    expect((await checkin(a, { qr_code: 'S-2', terminal: 'norte-1' })).status).toBe(200);
    expect((await checkin(b, { qr_code: 'S-2', terminal: 'sul-1' })).status).toBe(200);
    expect(a.status.site()).toMatchObject({ pendentes: 1, decisoes_sem_site_hoje: 1 });
    await hub.restart();
    await eventually(
      'back to site',
      () => a.status.site()?.modo === 'site' && b.status.site()?.modo === 'site',
      20_000,
    );
    await eventually('conflicts', () => a.status.site()!.conflitos === 1 && b.status.site()!.conflitos === 1);
    expect(a.status.site()).toMatchObject({ pendentes: 0 });
  });
});
