import { afterEach, expect, it } from 'vitest';
import { offlineLane } from '../support/lanes.js';
import { bootWithIdleSync, createTestBox, type TestBox } from '../support/box.js';

// The box's one status (src/status/box-status.ts): lanes, sync, storage and clock, computed in one place and read
// by /health/ready, /metrics and the console's panels, which only word it.

let box: TestBox | undefined;
afterEach(async () => box?.close());

const lanes = offlineLane('status');

it('one status: the lanes of the box tenant only, the sync of any tenant, storage and clock; health and metrics say the same', async () => {
  box = await createTestBox({ lanes });
  const { status } = box;
  expect(status.lanes()).toMatchObject({ tenantId: box.tenantId, lanes: [{ name: 'entrada-1' }] });
  expect(status.lanes()!.lanes[0]!.relay.online).toBe(false);
  expect(status.lanes(box.otherTenantId)).toBeNull();
  // No worker on this box: no sync of its own, but a tenant's local state is still read.
  expect(status.syncTenantId).toBeUndefined();
  expect(status.sync()).toBeNull();
  expect(status.sync(box.tenantId)).toMatchObject({ configured: false, online: null, waiting: 0, conflictsTotal: 0 });
  expect(status.storage()).toBeNull();
  expect(status.clock()).toMatchObject({ suspeito: false });

  const ready = (await box.app.inject({ method: 'GET', url: '/health/ready' })).json();
  expect(ready.error.details.partes.pistas.motivo).toContain('entrada-1: relé /tmp/nowhere-status-relay offline');
  const metrics = (await box.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
  expect(metrics).toContain('gate_device_up{pista="entrada-1",dispositivo="rele",porta="/tmp/nowhere-status-relay"} 0');
});

it("with a sync worker, the status is its tenant's: configured, and what waits counted as it will be sent", async () => {
  box = await createTestBox();
  await box.app.close();
  const synced = await bootWithIdleSync(box);
  try {
    expect(synced.status.syncTenantId).toBe(box.tenantId);
    expect(synced.status.sync()).toMatchObject({ configured: true, online: null, waiting: 0 });
    expect(synced.status.sync(box.otherTenantId)).toMatchObject({ configured: false });
  } finally {
    await synced.close();
  }
});
