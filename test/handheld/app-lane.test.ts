import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { startBridgeLaneRig, type BridgeLaneRig } from '../support/bridge-lane.js';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser, wedge } from '../support/handheld-browser.js';
import { openScannerSim, type ScannerSim } from '../support/lanes.js';
import { waitUntil } from '../support/pty.js';

// One ticket used twice while the handheld was cut off from the box (docs/handheld.md, "Envio da fila"): admitted on
// the handheld offline, and at a turnstile lane (a scanner and the bridge board on real ptys). When the handheld's
// queue reaches the box it is one duplo_handheld, and the cloud gets one check-in, the lane's.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
const ORDER = makeOrder({ numero: '20261121-0001', prefix: 'L', dataUso: '2026-11-21', people: 3 });
let rig: BridgeLaneRig;
let cloud: FakeCloud;
let cb: ConsoleBox;
let scanner: ScannerSim;
let device: Awaited<ReturnType<typeof startDeviceBrowser>> | undefined;

beforeAll(async () => {
  rig = await startBridgeLaneRig();
  cloud = await startFakeCloud({ clock: createFixedClock('America/Sao_Paulo', BOX_NOW) });
  cloud.addOrders([ORDER]);
  cb = await startConsoleBox({
    lanes: rig.lanes,
    handheld: HANDHELDS,
    cloud: {
      url: cloud.url,
      apiKey: cloud.keys.box,
      integrationKey: cloud.keys.integration,
      tenant: 'parque',
      timeoutMs: 5000,
      pullSeconds: 60,
      pushSeconds: 60,
      refreshCron: '0 0 1 1 *',
      fullRefreshCron: '0 0 1 1 *',
      daysAhead: 1,
    },
  });
  await cb.box.sync!.pullNow();
  scanner = await openScannerSim(rig.scannerPty.device);
});
afterAll(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  await scanner?.close();
  await cb?.close();
  await rig?.close();
  await cloud?.close();
});

describe('the same QR offline on a handheld and at a lane', () => {
  it('ends as one duplo_handheld at the box and one check-in at the cloud', async () => {
    const token = await pairingToken(await signInSupervisor(cb.box));
    device = await startDeviceBrowser(profileDir());
    const page = await appPage(device.browser.contexts()[0]!, cb.origin, BOX_NOW, `#parear=${token}`);
    await pairInApp(page, 'coletor-fila');

    // The queue's Wi-Fi drops: the handheld lets L-1 in on its own.
    await cb.goAway();
    expect(await wedge(page, 'L-1')).toEqual({ resultado: 'ok', noAparelho: true });

    // Meanwhile the same ticket at the turnstile: granted (the box never heard of the handheld's), and the visitor
    // goes through.
    const since = rig.board.mark();
    await scanner.scan('L-1');
    await rig.board.waitFor('grant', undefined, { since });
    await rig.board.setPassage();
    const person = () =>
      cb.box.db.sqlite.prepare("SELECT checkin_dispositivo FROM people WHERE qr_code = 'L-1'").get() as {
        checkin_dispositivo: string | null;
      };
    await waitUntil(() => person().checkin_dispositivo === 'entrada-1', 5000, 'lane check-in');

    await cb.comeBack();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 30_000 });
    const feed = await cb.box.app.inject({
      method: 'GET',
      url: '/api/local/conflicts',
      headers: { 'x-api-key': cb.box.keys.all },
    });
    expect(feed.json().data.conflitos).toEqual([
      expect.objectContaining({
        tipo: 'duplo_handheld',
        qr_code: 'L-1',
        terminal: 'coletor-fila',
        outro_terminal: 'entrada-1',
      }),
    ]);
    await cb.box.sync!.pushNow();
    expect(cloud.answers().filter((a) => a.qr_code === 'L-1')).toEqual([
      { action: 'checkin', qr_code: 'L-1', result: 'ok' },
    ]);
    expect(cloud.appliedCounts().get('checkin:L-1')).toBe(1);
  });
});
