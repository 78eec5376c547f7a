import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The gate's rooms (eslint.config.js, docs/lanes.md "Rooms of src/gate"): serial ← relays ← lanes ←
// the door and the wiring. A relay driver never imports the lanes; checked here on the real config.
const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: path.resolve(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the gate in rooms', () => {
  it.each([
    ['src/gate/relays/osdp/osdp-relay.ts', "import type { DenyReason } from '../../lanes/lane.js';"],
    ['src/gate/relays/bridge/bridge-relay.ts', "import type { LaneConfig } from '../../lanes/lane-config.js';"],
    ['src/gate/relays/lcus/lcus-relay.ts', "import type { ScanRejectReason } from '../../lanes/scanner-lines.js';"],
    ['src/gate/relays/relay.ts', "import type { LaneRelay } from '../lanes/lane.js';"],
    ['src/gate/relays/relay-config.ts', "import { laneSchema } from '../lanes/lane-config.js';"],
    ['src/gate/relays/osdp/osdp-bus.ts', "import { startLanes } from '../../register.js';"],
    ['src/gate/relays/osdp/osdp-bus.ts', "import type { CheckinService } from '../../../checkin/checkin.service.js';"],
  ])('a driver: %s refuses %s', async (file, code) => {
    expect(await restricted(file, code)).toEqual([expect.stringMatching(/relay driver never imports the lanes/)]);
  });

  it.each([
    ['src/gate/serial/serial-link.ts', "import type { RelayDriver } from '../relays/relay.js';"],
    ['src/gate/serial/serial-link.ts', "import type { Lane } from '../lanes/lane.js';"],
    ['src/gate/serial/byte-link.ts', "import { serialDevices } from '../devices.js';"],
  ])('the serial layer: %s refuses %s', async (file, code) => {
    expect(await restricted(file, code)).toEqual([expect.stringMatching(/serial layer knows no relay/)]);
  });

  it.each([
    ['src/gate/lanes/gates.ts', "import { createBridgeRelay } from '../relays/bridge/bridge-relay.js';"],
    ['src/gate/lanes/gates.ts', "import type { OsdpBus } from '../relays/osdp/osdp-types.js';"],
    ['src/gate/lanes/gates.ts', "import { openSerialLink } from '../serial/serial-link.js';"],
    ['src/gate/lanes/lane.ts', "import { gatesRoutes } from '../gates.routes.js';"],
    ['src/gate/lanes/lane-events.ts', "import { serialDevices } from '../devices.js';"],
  ])('the lanes: %s refuses %s', async (file, code) => {
    expect(await restricted(file, code)).toEqual([expect.stringMatching(/lanes know a relay only by its contract/)]);
  });

  it.each([
    ['src/gate/relays/osdp/osdp-relay.ts', "import type { DenyReason } from '../relay.js';"],
    ['src/gate/relays/osdp/osdp-relay.ts', "import type { OsdpRelayConfig } from '../relay-config.js';"],
    ['src/gate/relays/osdp/osdp-bus.ts', "import type { ByteLink } from '../../serial/byte-link.js';"],
    ['src/gate/relays/osdp/osdp-bus.ts', "import { systemClock } from '../../../clock.js';"],
    ['src/gate/relays/osdp/osdp-pd.ts', "import type { OsdpPdState } from './osdp-types.js';"],
    ['src/gate/relays/bridge/bridge-codec.ts', "import { crc16CcittFalse } from '../../../lib/crc.js';"],
    ['src/gate/relays/relay.ts', "import type { Log } from '../../lib/log.js';"],
    ['src/gate/serial/serial-link.ts', "import type { ByteLink } from './byte-link.js';"],
    ['src/gate/lanes/lane.ts', "import type { LaneRelay } from '../relays/relay.js';"],
    ['src/gate/lanes/gates.ts', "import type { ByteLink } from '../serial/byte-link.js';"],
    ['src/gate/lanes/lane-config.ts', "import { relaySchema } from '../relays/relay-config.js';"],
    ['src/gate/lanes/gates.ts', "import type { CheckinService } from '../../checkin/checkin.service.js';"],
    ['src/gate/devices.ts', "import { createBridgeRelay } from './relays/bridge/bridge-relay.js';"],
  ])('%s may import %s', async (file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });

  it("a lane, in the gate's subfolder, does not import another feature's routes either", async () => {
    expect(
      await restricted('src/gate/lanes/lane.ts', "import { checkinRoutes } from '../../checkin/checkin.routes.js';"),
    ).toEqual([expect.stringMatching(/routes are its door/)]);
  });
});
