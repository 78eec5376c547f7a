import type { Log } from '../../../lib/log.js';
import type { OsdpRelayConfig } from '../relay-config.js';
import type { OsdpBus, OsdpPd, OsdpPdState } from './osdp-types.js';
import { OsdpCommand, OsdpReply, type OsdpPacket } from './osdp-codec.js';
import {
  BuzzerTone,
  LedControl,
  OsdpColor,
  OutControlCode,
  buzData,
  ledData,
  outData,
  parseFmt,
  parseKeypad,
  parseRaw,
  rawCardText,
  type LedTemporary,
} from './osdp-messages.js';
import { onlineSignal, type DenyReason, type RelayDriver, type RelayStatus, type ScanRejectReason } from '../relay.js';
import { SCBK_DEFAULT, parseScbk } from './osdp-secure.js';
import type { PdKeys } from './osdp-session.js';

// One lane's OSDP peripheral (PD) on a shared bus: grant drives one output, the reader's LED and
// buzzer show the result, and a reader that sends QR codes as card data is the lane's scanner too.

/**
 * RAW card data a reader sends at most: libosdp caps a card read at 64 bytes
 * (include/osdp.h OSDP_EVENT_CARDREAD_MAX_DATALEN), so a longer QR arrives cut to 64. A read of 64
 * bytes or more is refused as possibly truncated; tickets are far shorter (a UUID is 36).
 */
export const OSDP_MAX_CARD_BYTES = 64;

interface Signal {
  led: LedTemporary;
  buz: { onTime: number; offTime: number; count: number };
}

const red = (onTime: number, offTime: number, timer: number, offColor: number = OsdpColor.BLACK): LedTemporary => ({
  control: LedControl.TEMPORARY_SET,
  onTime,
  offTime,
  onColor: OsdpColor.RED,
  offColor,
  timer,
});

/**
 * Deny signals per reason (times in 100 ms; LED 0 of reader 0, temporary state, then back to the
 * reader's own permanent state). Each differs in its LED rhythm and its beeps:
 *
 * | reason        | LED (on / off)               | for   | buzzer                |
 * |---------------|------------------------------|-------|-----------------------|
 * | other         | red steady                   | 2 s   | 1 beep of 0.5 s       |
 * | already_used  | red fast blink 0.1 / 0.1 s   | 3 s   | 3 short beeps         |
 * | expired       | red slow blink 0.5 / 0.5 s   | 3 s   | 2 beeps of 0.3 s      |
 * | not_yet_valid | red 0.3 s / amber 0.3 s      | 3 s   | 2 short, spaced beeps |
 * | not_found     | red flash 0.1 s every 0.5 s  | 3 s   | 1 long beep of 1 s    |
 * | cancelled     | red 0.8 s / off 0.2 s        | 3 s   | 4 short beeps         |
 * | capacity      | amber steady                 | 3 s   | 2 beeps of 0.5 s      |
 */
export const OSDP_DENY_SIGNALS: Readonly<Record<DenyReason, Signal>> = {
  other: { led: red(20, 0, 20, OsdpColor.RED), buz: { onTime: 5, offTime: 0, count: 1 } },
  already_used: { led: red(1, 1, 30), buz: { onTime: 1, offTime: 1, count: 3 } },
  expired: { led: red(5, 5, 30), buz: { onTime: 3, offTime: 3, count: 2 } },
  not_yet_valid: { led: red(3, 3, 30, OsdpColor.AMBER), buz: { onTime: 1, offTime: 3, count: 2 } },
  not_found: { led: red(1, 4, 30), buz: { onTime: 10, offTime: 0, count: 1 } },
  cancelled: { led: red(8, 2, 30), buz: { onTime: 1, offTime: 2, count: 4 } },
  capacity: {
    led: {
      control: LedControl.TEMPORARY_SET,
      onTime: 30,
      offTime: 0,
      onColor: OsdpColor.AMBER,
      offColor: OsdpColor.AMBER,
      timer: 30,
    },
    buz: { onTime: 5, offTime: 5, count: 2 },
  },
};

/** The green shows at least this long (100 ms units) even for short pulses, so people see it. */
const GRANT_LED_MIN = 20;
const KEEP_PERMANENT = { control: LedControl.NOP, onTime: 0, offTime: 0, onColor: 0, offColor: 0 };

const ledCommand = (led: LedTemporary) => ledData(0, 0, led, KEEP_PERMANENT);
const beep = (b: Signal['buz']) => buzData({ reader: 0, tone: BuzzerTone.DEFAULT, ...b });

/** The PD's keys from its lane: none → clear mode; install mode → SCBK-D may open the way to set the key. */
export function osdpKeys(config: Pick<OsdpRelayConfig, 'scbk' | 'installMode'>): PdKeys | null {
  const scbk = config.scbk ? parseScbk(config.scbk) : null;
  return scbk ? { scbk, fallback: config.installMode ? [SCBK_DEFAULT] : [] } : null;
}

export interface OsdpRelayDeps {
  bus: OsdpBus;
  config: OsdpRelayConfig;
  log: Log;
}

/** What one OSDP relay holds; the steps below read it. */
export interface OsdpRelayState {
  readonly path: string;
  readonly address: number;
  readonly output: number;
  readonly log: Log;
  readonly scanListeners: Set<(code: string) => void>;
  readonly rejectListeners: Set<(reason: ScanRejectReason) => void>;
  /** Remembered even while the PD is unreachable: its restore applies it when it answers again. */
  freePassage: boolean;
}

export function createOsdpRelay({ bus, config, log }: OsdpRelayDeps): RelayDriver {
  const s: OsdpRelayState = {
    path: bus.path,
    address: config.address,
    output: config.output,
    log,
    scanListeners: new Set(),
    rejectListeners: new Set(),
    freePassage: false,
  };
  const online = onlineSignal(log, bus.path);
  const pd = bus.attach(
    s.address,
    { onPollReply: (p) => onPollReply(s, p), restore: () => restoreOutputs(s), onOnline: online.set },
    osdpKeys(config),
  );
  return {
    grant: (_direction, pulseMs) => grant(s, pd, pulseMs),
    async deny(reason) {
      const signal = OSDP_DENY_SIGNALS[reason];
      await Promise.all([pd.send(OsdpCommand.LED, ledCommand(signal.led)), pd.send(OsdpCommand.BUZ, beep(signal.buz))]);
    },
    async setFreePassage(on) {
      s.freePassage = on;
      await pd.send(
        OsdpCommand.OUT,
        outCommand(s, on ? OutControlCode.PERMANENT_ON_ABORT_TIMED : OutControlCode.PERMANENT_OFF_ABORT_TIMED),
      );
    },
    onScan(listener) {
      s.scanListeners.add(listener);
      return () => s.scanListeners.delete(listener);
    },
    onScanRejected(listener) {
      s.rejectListeners.add(listener);
      return () => s.rejectListeners.delete(listener);
    },
    onOnline: online.add,
    status: () => osdpRelayStatus(s, pd.state()),
    async close() {
      s.scanListeners.clear();
      s.rejectListeners.clear();
      pd.detach();
    },
  };
}

const outCommand = (s: OsdpRelayState, control: number, timer = 0) => outData([{ output: s.output, control, timer }]);

/**
 * What the PD's outputs must hold after every handshake: it may have lost power or kept an old
 * state while unreachable. Allow-timed-to-finish (3) so a pulse under way is not cut when free
 * passage is off.
 */
export function restoreOutputs(s: OsdpRelayState): { code: number; data: Uint8Array }[] {
  return [
    {
      code: OsdpCommand.OUT,
      data: outCommand(
        s,
        s.freePassage ? OutControlCode.PERMANENT_ON_ABORT_TIMED : OutControlCode.PERMANENT_OFF_AFTER_TIMED,
      ),
    },
  ];
}

export async function grant(s: OsdpRelayState, pd: OsdpPd, pulseMs: number): Promise<void> {
  const timer = Math.max(1, Math.ceil(pulseMs / 100));
  const opened = pd.send(OsdpCommand.OUT, outCommand(s, OutControlCode.TEMPORARY_ON, timer));
  const ledTimer = Math.max(timer, GRANT_LED_MIN);
  const green: LedTemporary = {
    control: LedControl.TEMPORARY_SET,
    onTime: ledTimer,
    offTime: 0,
    onColor: OsdpColor.GREEN,
    offColor: OsdpColor.GREEN,
    timer: ledTimer,
  };
  const cosmetic = (what: string) => (err: unknown) =>
    s.log.warn({ err, path: s.path, address: s.address }, `OSDP ${what} failed`);
  // Queued behind OUT, so the turnstile opens first; LED and beep failures do not undo a grant.
  pd.send(OsdpCommand.LED, ledCommand(green)).catch(cosmetic('grant LED'));
  pd.send(OsdpCommand.BUZ, beep({ onTime: 1, offTime: 0, count: 1 })).catch(cosmetic('grant beep'));
  await opened;
}

function emitScan(s: OsdpRelayState, code: string): void {
  for (const l of s.scanListeners) {
    try {
      l(code);
    } catch (err) {
      s.log.error({ err, path: s.path, address: s.address }, 'OSDP scan listener failed');
    }
  }
}

/** A POLL answered with a read: a text code is a scan; anything else is logged and dropped. */
export function onPollReply(s: OsdpRelayState, p: OsdpPacket): void {
  const { log, path, address } = s;
  if (p.code === OsdpReply.RAW) {
    const card = parseRaw(p.data);
    if (card && card.data.length >= OSDP_MAX_CARD_BYTES) {
      // At the reader's cap the code was most likely cut: refused, never looked up truncated.
      log.warn(
        { path, address, bytes: card.data.length },
        'OSDP card read at the reader limit: refused as possibly truncated',
      );
      for (const l of s.rejectListeners) l('too_long');
      return;
    }
    const code = card && rawCardText(card);
    if (code) return emitScan(s, code);
    log.warn(
      { path, address, bits: card?.bitCount, format: card?.format },
      'OSDP card read is not a text code: ignored',
    );
    return;
  }
  if (p.code === OsdpReply.FMT) {
    const text = parseFmt(p.data)?.text;
    if (text && /^[\x20-\x7e]+$/.test(text)) return emitScan(s, text);
    log.warn({ path, address }, 'OSDP formatted read is not a text code: ignored');
    return;
  }
  if (p.code === OsdpReply.KEYPAD) {
    // Lanes take no PINs: keys are not codes, and a typed ticket number is not a scan.
    log.info({ path, address, keys: parseKeypad(p.data)?.keys.length ?? 0 }, 'OSDP keypad input ignored');
    return;
  }
  log.debug?.({ path, address, code: p.code }, 'OSDP reply to POLL ignored');
}

export function osdpRelayStatus(s: OsdpRelayState, pd: OsdpPdState): RelayStatus {
  const id = pd.pdId;
  return {
    driver: 'osdp',
    path: s.path,
    online: pd.online,
    failSafe: true,
    freePassage: s.freePassage,
    lastSeenAt: pd.lastSeenAt,
    problem: pd.problem,
    device: {
      address: s.address,
      output: s.output,
      phase: pd.phase,
      vendor: id ? id.vendor.toString(16).padStart(6, '0') : null,
      model: id?.model ?? null,
      version: id?.version ?? null,
      serial: id?.serial ?? null,
      firmware: id?.firmware ?? null,
      capabilities: pd.pdCap ? pd.pdCap.map((c) => `${c.function}:${c.compliance}:${c.count}`).join(' ') : null,
      lastNak: pd.lastNak,
      secureChannel: pd.secure,
      keyConfigured: pd.keyConfigured,
      restarts: pd.restarts,
    },
  };
}
