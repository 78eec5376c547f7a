import type { ByteLink } from '../../src/gate/serial/byte-link.js';
import { createOsdpBus } from '../../src/gate/relays/osdp/osdp-bus.js';
import type { OsdpBus } from '../../src/gate/relays/osdp/osdp-types.js';
import { nextOsdpSequence } from '../../src/gate/relays/osdp/osdp-codec.js';
import type { OsdpRelayConfig } from '../../src/gate/relays/relay-config.js';
import type { RelayDriver } from '../../src/gate/relays/relay.js';
import { openOsdpSim, type OsdpSim, type ReaderOptions, type SimCommand, type SimReader } from './osdp-reader-sim.js';
import { openPortLink } from './port-link.js';
import { openPtyPair, waitUntil, type PtyPair } from './pty.js';

// The box's OSDP bus on one end of a socat pty pair, simulated readers on the other.

// Reply timeout well above OSDP's 200 ms: a busy 2-core machine must not make a healthy PD look dead.
export const TIMING = { pollIntervalMs: 40, replyTimeoutMs: 300, offlineAfter: 3, offlineRetryMs: 300 };

export interface LogLine {
  /** performance.now() when logged. */
  at: number;
  level: string;
  obj: object;
  msg: string;
}

export interface OsdpHarness {
  pty: PtyPair;
  sim: OsdpSim;
  link: ByteLink;
  bus: OsdpBus;
  logged: LogLine[];
  config(address: number, over?: Partial<OsdpRelayConfig>): OsdpRelayConfig;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Wraps the box's link, e.g. to garble a write on its way to the readers. */
  wrapLink?: (link: ByteLink) => ByteLink;
}

export async function openOsdpHarness(readers: ReaderOptions[], opts: HarnessOptions = {}): Promise<OsdpHarness> {
  const logged: LogLine[] = [];
  const at = (level: string) => (obj: object, msg: string) =>
    void logged.push({ at: performance.now(), level, obj, msg });
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const pty = await openPtyPair('osdp');
  const sim = await openOsdpSim(pty.device, readers);
  const raw = await openPortLink(pty.box);
  const link = opts.wrapLink ? opts.wrapLink(raw) : raw;
  const bus = createOsdpBus({ link, log, ...TIMING });
  return {
    pty,
    sim,
    link,
    bus,
    logged,
    config: (address, over = {}) => ({
      driver: 'osdp',
      path: pty.box,
      baud: 9600,
      pulseMs: 500,
      address,
      output: 0,
      installMode: false,
      ...over,
    }),
    async close() {
      await bus.close();
      await raw.close();
      await sim.close();
      await pty.close();
    },
  };
}

export const online = (relay: RelayDriver, timeoutMs = 8000) =>
  waitUntil(() => relay.status().online, timeoutMs, 'PD online');
/** One entry per exchange: the CP's resends of a packet show as repeats at the PD. */
export const exchanges = (r: SimReader) => r.received.filter((c) => !c.repeat && !c.ignored);
export const polls = (r: SimReader) => exchanges(r).filter((c) => c.code === 0x60).length;

/** Sequence numbers of consecutive exchanges: 0 starts over, then 1, 2, 3, 1... */
export function sequenceBreaks(cmds: SimCommand[]): string[] {
  const breaks: string[] = [];
  for (let i = 1; i < cmds.length; i++) {
    const { sequence } = cmds[i]!;
    if (sequence !== 0 && sequence !== nextOsdpSequence(cmds[i - 1]!.sequence))
      breaks.push(`exchange ${i}: ${cmds[i - 1]!.sequence} → ${sequence}`);
  }
  return breaks;
}
