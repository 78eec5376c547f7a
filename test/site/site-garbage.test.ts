import fs from 'node:fs';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMessage, signingKey, subjectOf, type Origin } from '../../src/site/site-messages.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { startHub, type TestHub, siteLinkOf } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// Garbage and forgeries published straight to the hub (with a box's real credentials): each is acknowledged
// and skipped, counted by its reason, and changes nothing; the movements after them are applied as usual.

const BOXES = ['norte', 'sul', 'leste'];
const NOW = '2026-11-21T13:00:00.000Z';
let hub: TestHub;
let box: TestBox;

beforeAll(async () => {
  hub = await startHub({ boxes: BOXES });
  box = await createTestBox({
    siteLink: siteLinkOf(hub, 'norte', BOXES),
  });
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 })]);
  await eventually('site mode', () => box.status.site()?.modo === 'site');
});
afterAll(async () => {
  await box.close();
  await hub.close();
});

const password = (b: string) => fs.readFileSync(hub.passwordFile(b), 'utf8').trim();
const as = (b: string, run = 'outra-vida'): Origin => ({
  tenant: 'parque',
  box: b,
  boxes: BOXES,
  run,
  earlierRuns: new Set(),
  secret: signingKey(password(b)),
});
const movement = (id: string, qr: string) => ({
  id,
  action: 'checkin',
  kind: 'person' as const,
  qr,
  code: qr,
  mode: 'qr' as const,
  at: NOW,
  area: 'parque',
  terminal: 'sul-1',
  operator: null,
  source: 'lane',
  local: false,
});
const text = (s: string) => new TextEncoder().encode(s);
const used = (qr: string) =>
  (box.db.sqlite.prepare('select checkin_em from people where qr_code = ?').get(qr) as { checkin_em: string | null })
    .checkin_em;

describe('messages on the hub that are not movements of this site', () => {
  it('are skipped, counted by reason, and never change a ticket', async () => {
    const nc = await connect({ servers: hub.url, user: 'gate-sul', pass: password('sul') });
    const js = jetstream(nc);
    const s1 = subjectOf('parque', 'person', 'S-1');
    const json = (o: object) => text(JSON.stringify(o));
    const valid = JSON.parse(new TextDecoder().decode(encodeMessage(as('sul'), movement('sul.valido0000001', 'S-1'))));
    const published = [
      [s1, text('not json {')],
      [s1, text('x'.repeat(9 * 1024))],
      [s1, json({ ...valid, v: 2 })],
      [s1, json({ ...valid, qr: undefined })],
      [s1, json({ ...valid, tenant: 'outro' })],
      [s1, json({ ...valid, box: 'oeste', id: 'oeste.valido0000001' })],
      [s1, json({ ...valid, action: 'teletransporte' })],
      // norte's name without norte's signature (the hub lets sul publish it; norte knows it is not its own)
      [s1, encodeMessage({ ...as('sul'), box: 'norte' }, movement('norte.forjado00001', 'S-1'))],
      // a movement of S-1 on S-2's subject
      [subjectOf('parque', 'person', 'S-2'), encodeMessage(as('sul'), movement('sul.trocado000001', 'S-1'))],
    ] as const;
    for (const [subject, data] of published) await js.publish(subject, data);
    // A real movement after all of that still gets through.
    await js.publish(
      subjectOf('parque', 'person', 'S-3'),
      encodeMessage(as('sul'), movement('sul.depois0000001', 'S-3')),
    );
    await nc.close();
    await eventually('the movement after the garbage', () => used('S-3') !== null);
    expect(box.status.site()!.rejeitadas).toEqual({
      nao_json: 1,
      grande_demais: 1,
      versao: 1,
      esquema: 1,
      outro_tenant: 1,
      caixa_desconhecida: 1,
      acao_desconhecida: 1,
      origem_forjada: 2,
    });
    expect(used('S-1')).toBeNull();
    expect(used('S-2')).toBeNull();
    // Nothing of it reached the event log.
    expect(box.db.sqlite.prepare("select count(*) from events where source != 'api'").pluck().get()).toBe(1);
  });
});
