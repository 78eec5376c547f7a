import type { CheckinService } from '../../checkin/checkin.service.js';
import type { MovementSettings } from '../../checkin/movement.settings.js';
import type { Clock } from '../../clock.js';
import type { ByteLink } from '../serial/byte-link.js';
import type { Log } from '../../lib/log.js';
import { attachScanner, createLane } from './lane.js';
import type { Lane, LaneStatus } from './lane-types.js';
import { movePolicy, type LaneConfig, type LaneConfigFile } from './lane-config.js';
import type { RelayConfig } from '../relays/relay-config.js';
import { laneEventRow, type LaneEventLog } from './lane-events.js';
import type { RelayDriver, RelayStatus } from '../relays/relay.js';

// The gate lanes of one box: opens every port of the lanes file, builds each lane on the shared
// check-in service, and applies the fire alarm to all of them. Ports come and go without stopping it.

export interface LinkStatus {
  path: string;
  up: boolean;
  since: string | null;
  reconnects: number;
  lastError: string | null;
}

export type ManagedLink = ByteLink & { status(): LinkStatus };
type Relay<D extends RelayConfig['driver']> = Extract<RelayConfig, { driver: D }>;

/** How the gate reaches its hardware (src/gate/devices.ts wires the real drivers). */
export interface GateDevices {
  openLink(o: { path: string; baudRate: number; role: 'scanner' | 'relay' }): ManagedLink;
  bridge(link: ByteLink, relay: Relay<'bridge'>, lane: LaneConfig): RelayDriver;
  lcus(link: ByteLink, relay: Relay<'lcus'>, lane: LaneConfig): RelayDriver;
  osdpBus(link: ByteLink): { relay(relay: Relay<'osdp'>, lane: LaneConfig): RelayDriver; close(): Promise<void> };
}

export interface GateLaneStatus extends LaneStatus {
  relay: RelayStatus;
  scanners: LinkStatus[];
}

export interface GatesStatus {
  fireAlarm: { active: boolean; since: string | null; sources: string[] };
  lanes: GateLaneStatus[];
}

export interface Gates {
  status(): GatesStatus;
  lane(name: string): Lane | undefined;
  close(): Promise<void>;
}

/** The running lanes as the routes, health, metrics and console see them; absent when GATE_CONFIG is not set. */
export interface GatesInfo {
  tenantId: number;
  gates: Gates;
  events: LaneEventLog;
  /** The lanes file's movement settings (policies, areas): the tenant's. */
  settings: MovementSettings;
}

export interface GatesDeps {
  config: LaneConfigFile;
  checkin: CheckinService;
  tenantId: number;
  clock: Clock;
  log: Log;
  events: LaneEventLog;
  devices: GateDevices;
  /** Each grant's time from the scan to the relay taking it, by lane (/metrics). */
  onGrant?: ((lane: string, seconds: number) => void) | undefined;
}

export function startGates({ config, checkin, tenantId, clock, log, events, devices, onGrant }: GatesDeps): Gates {
  const links = new Map<string, ManagedLink>();
  const buses = new Map<string, ReturnType<GateDevices['osdpBus']>>();
  const linkFor = (path: string, baudRate: number, role: 'scanner' | 'relay') => {
    let link = links.get(path);
    if (!link) links.set(path, (link = devices.openLink({ path, baudRate, role })));
    return link;
  };
  const relayFor = (lane: LaneConfig): RelayDriver => {
    const r = lane.relay;
    const link = linkFor(r.path, r.baud, 'relay');
    if (r.driver === 'bridge') return devices.bridge(link, r, lane);
    if (r.driver === 'lcus') return devices.lcus(link, r, lane);
    let bus = buses.get(r.path);
    if (!bus) buses.set(r.path, (bus = devices.osdpBus(link)));
    return bus.relay(r, lane);
  };

  const fire = { sources: new Set<string>(), since: null as string | null };
  const entries: { lane: Lane; relay: RelayDriver; scanners: ManagedLink[]; cleanups: (() => void)[] }[] = [];

  function setFire(source: string, active: boolean): void {
    const wasActive = fire.sources.size > 0;
    if (active) fire.sources.add(source);
    else fire.sources.delete(source);
    const isActive = fire.sources.size > 0;
    if (isActive === wasActive) return;
    const at = clock.nowIso();
    fire.since = isActive ? at : null;
    log.warn(
      { origem: source, active: isActive },
      isActive ? 'fire alarm: every lane in free passage' : 'fire alarm cleared: lanes back to normal',
    );
    void events.append({
      lane: '*',
      at,
      kind: isActive ? 'incendio_inicio' : 'incendio_fim',
      details: { origem: source },
    });
    for (const e of entries)
      Promise.resolve(e.relay.setFreePassage(isActive)).catch((err: unknown) =>
        log.error({ err, lane: e.lane.name }, 'free passage could not be set'),
      );
  }

  // Offline/online of relays and scanner ports as lane events, from the devices' own signals (a
  // port closing or reopening, a session lost or set up), never from a sample: a cable out and
  // back within a second leaves both, in order. One per change; a device whose first known state
  // is online leaves none, one missing from the start leaves an offline.
  const online = new Map<string, boolean>();
  function deviceSeen(lane: string, dispositivo: 'rele' | 'leitor', path: string, up: boolean): void {
    const key = `${lane}:${dispositivo}:${path}`;
    const before = online.get(key);
    online.set(key, up);
    if (before === undefined ? up : before === up) return;
    void events.append({
      lane,
      at: clock.nowIso(),
      kind: up ? 'dispositivo_online' : 'dispositivo_offline',
      details: { porta: path, dispositivo },
    });
  }

  for (const laneConfig of config.lanes) {
    const relay = relayFor(laneConfig);
    const lane = createLane({
      config: laneConfig,
      policy: movePolicy(config, laneConfig),
      checkin,
      tenantId,
      relay,
      clock,
      log,
      onGrant: onGrant && ((s) => onGrant(laneConfig.name, s)),
    });
    const cleanups: (() => void)[] = [];
    cleanups.push(lane.onEvent((e) => void events.append(laneEventRow(e))));
    const scanners = laneConfig.scanners.map((s) => {
      const link = linkFor(s.path, s.baud, 'scanner');
      const splitter = attachScanner(lane, s, log);
      cleanups.push(link.onData((chunk) => splitter.push(chunk)));
      cleanups.push(
        link.onState((state) => {
          if (state === 'down') splitter.reset();
          deviceSeen(laneConfig.name, 'leitor', s.path, state === 'up');
        }),
      );
      return link;
    });
    cleanups.push(relay.onOnline((up) => deviceSeen(laneConfig.name, 'rele', laneConfig.relay.path, up)));
    const scanFailed = (err: unknown) => log.error({ err, lane: lane.name }, 'scan failed');
    if (relay.onScan) cleanups.push(relay.onScan((code) => void lane.scan(code).catch(scanFailed)));
    if (relay.onScanRejected)
      cleanups.push(relay.onScanRejected((reason) => void lane.scanRejected(reason).catch(scanFailed)));
    if (relay.onFire) cleanups.push(relay.onFire((active) => setFire(laneConfig.name, active)));
    entries.push({ lane, relay, scanners, cleanups });
  }

  return {
    status: () => ({
      fireAlarm: { active: fire.sources.size > 0, since: fire.since, sources: [...fire.sources] },
      lanes: entries.map((e) => ({
        ...e.lane.status(),
        relay: e.relay.status(),
        scanners: e.scanners.map((s) => s.status()),
      })),
    }),
    lane: (name) => entries.find((e) => e.lane.name === name)?.lane,
    async close() {
      for (const e of entries) {
        e.cleanups.forEach((c) => c());
        e.lane.close();
      }
      await Promise.allSettled(entries.map((e) => e.relay.close()));
      await Promise.allSettled([...buses.values()].map((b) => b.close()));
      await Promise.allSettled([...links.values()].map((l) => l.close()));
    },
  };
}
