import { createBridgeRelay } from './relays/bridge/bridge-relay.js';
import type { GateDevices } from './lanes/gates.js';
import { createLcusRelay } from './relays/lcus/lcus-relay.js';
import type { Log } from '../lib/log.js';
import { createOsdpBus } from './relays/osdp/osdp-bus.js';
import { openSerialLink } from './serial/serial-link.js';

/** The real hardware: serial ports that reconnect by themselves and the three relay drivers. */
export function serialDevices(log: Log): GateDevices {
  return {
    openLink: ({ path, baudRate }) => openSerialLink({ path, baudRate, log }),
    bridge: (link, relay, lane) => createBridgeRelay({ link, config: relay, failMode: lane.failMode, log }),
    lcus: (link, relay) => createLcusRelay({ link, config: relay, log }),
    osdpBus: (link) => {
      const bus = createOsdpBus({ link, log });
      return { relay: (relay) => bus.relay(relay), close: () => bus.close() };
    },
  };
}
