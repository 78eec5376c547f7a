import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { WritePriority } from '../../src/db/write-queue.js';
import { checkDeviceKey, type Device } from '../../src/handheld/devices.repo.js';
import { uploadItem } from '../../src/handheld/handheld.schemas.js';
import { createHandheldService } from '../../src/handheld/handheld.service.js';
import type { TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { handheldBox, moveId, pair } from '../support/handheld.js';

// A handheld's upload (up to 500 movements a request) must not hold the box's event loop: a scan at a lane waits for
// one piece of it at most (issue 25: 20 movements a piece held the loop 10–34 ms, and checking all 500 against the
// schema at once 5–13 ms, in `npm run bench:heavy` on a busy box).

let box: TestBox;
let device: Device;
beforeEach(async () => {
  const made = await handheldBox();
  box = made.box;
  box.importOrders([makeOrder({ prefix: 'H', people: 250, dataUso: box.clock.today() })]);
  const paired = await pair(box as typeof box & { tenantId: number }, made.supervisor, 'coletor-1');
  const check = checkDeviceKey(box.db, paired.key);
  if (check.kind !== 'ok') throw new Error('the paired device was not found');
  device = check.device;
});
afterEach(async () => {
  vi.restoreAllMocks();
  await box.close();
});

const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: moveId(),
    codigo: `H-${i + 1}`,
    acao: 'checkin',
    resultado: 'ok',
    decidido_em: new Date(box.clock.now().getTime() - 60_000).toISOString(),
    operador: 'Bia',
    dados_de: box.clock.today(),
  }));

it('records an upload in pieces that end once they took their time: with none, one movement per commit', async () => {
  const service = createHandheldService({
    db: box.db,
    clock: box.clock,
    checkin: box.checkin,
    names: false,
    pieceMs: 0,
  });
  const commits: WritePriority[] = [];
  box.db.writes.observe({ committed: (p) => commits.push(p), synced: () => undefined, failed: () => undefined });
  const answers = await service.upload(device, box.clock.nowIso(), items(30));
  expect(answers.map((a) => a.estado)).toEqual(Array(30).fill('aplicado'));
  expect(commits).toEqual(Array(30).fill('background'));
  const checked = box.db.sqlite
    .prepare(`SELECT count(*) FROM people WHERE qr_code LIKE 'H-%' AND checkin_dispositivo = 'coletor-1'`)
    .pluck()
    .get();
  expect(checked).toBe(30);
});

it('checks the movements against the schema a hundred per turn of the event loop', async () => {
  const service = createHandheldService({ db: box.db, clock: box.clock, checkin: box.checkin, names: false });
  const checked = vi.spyOn(uploadItem, 'safeParse');
  const uploading = service.upload(device, box.clock.nowIso(), items(250));
  // upload() ran up to its first wait: the first hundred were checked, the rest wait for the next turns.
  expect(checked).toHaveBeenCalledTimes(100);
  const answers = await uploading;
  expect(checked).toHaveBeenCalledTimes(250);
  expect(answers.filter((a) => a.estado === 'aplicado')).toHaveLength(250);
});

it('still records at most 20 movements a piece when they are quick', async () => {
  const service = createHandheldService({
    db: box.db,
    clock: box.clock,
    checkin: box.checkin,
    names: false,
    pieceMs: 60_000,
  });
  const commits: WritePriority[] = [];
  box.db.writes.observe({ committed: (p) => commits.push(p), synced: () => undefined, failed: () => undefined });
  const answers = await service.upload(device, box.clock.nowIso(), items(50));
  expect(answers.filter((a) => a.estado === 'aplicado')).toHaveLength(50);
  expect(commits).toEqual(Array(3).fill('background'));
});
