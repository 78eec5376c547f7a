import type { Log } from '../../../lib/log.js';
import type { OsdpRelayConfig } from '../relay-config.js';
import type { OsdpBus } from './osdp-types.js';
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

export function createOsdpRelay({ bus, config, log }: OsdpRelayDeps): RelayDriver {
  const { address, output } = config;
  const scanListeners = new Set<(code: string) => void>();
  const rejectListeners = new Set<(reason: ScanRejectReason) => void>();
  const online = onlineSignal(log, bus.path);
  let freePassage = false;

  const out = (control: number, timer = 0) => outData([{ output, control, timer }]);
  const cosmetic = (what: string) => (err: unknown) =>
    log.warn({ err, path: bus.path, address }, `OSDP ${what} failed`);

  function emitScan(code: string): void {
    for (const l of scanListeners) {
      try {
        l(code);
      } catch (err) {
        log.error({ err, path: bus.path, address }, 'OSDP scan listener failed');
      }
    }
  }

  function onPollReply(p: OsdpPacket): void {
    if (p.code === OsdpReply.RAW) {
      const card = parseRaw(p.data);
      if (card && card.data.length >= OSDP_MAX_CARD_BYTES) {
        // At the reader's cap the code was most likely cut: refused, never looked up truncated.
        log.warn(
          { path: bus.path, address, bytes: card.data.length },
          'OSDP card read at the reader limit: refused as possibly truncated',
        );
        for (const l of rejectListeners) l('too_long');
        return;
      }
      const code = card && rawCardText(card);
      if (code) return emitScan(code);
      log.warn(
        { path: bus.path, address, bits: card?.bitCount, format: card?.format },
        'OSDP card read is not a text code: ignored',
      );
      return;
    }
    if (p.code === OsdpReply.FMT) {
      const text = parseFmt(p.data)?.text;
      if (text && /^[\x20-\x7e]+$/.test(text)) return emitScan(text);
      log.warn({ path: bus.path, address }, 'OSDP formatted read is not a text code: ignored');
      return;
    }
    if (p.code === OsdpReply.KEYPAD) {
      // Lanes take no PINs: keys are not codes, and a typed ticket number is not a scan.
      log.info({ path: bus.path, address, keys: parseKeypad(p.data)?.keys.length ?? 0 }, 'OSDP keypad input ignored');
      return;
    }
    log.debug?.({ path: bus.path, address, code: p.code }, 'OSDP reply to POLL ignored');
  }

  const pd = bus.attach(
    address,
    {
      onPollReply,
      // The PD may have lost power or kept an old state while unreachable: say again what it must hold.
      // Allow-timed-to-finish (3) so a pulse under way is not cut when free passage is off.
      restore: () => [
        {
          code: OsdpCommand.OUT,
          data: out(freePassage ? OutControlCode.PERMANENT_ON_ABORT_TIMED : OutControlCode.PERMANENT_OFF_AFTER_TIMED),
        },
      ],
      onOnline: online.set,
    },
    osdpKeys(config),
  );

  return {
    async grant(_direction, pulseMs) {
      const timer = Math.max(1, Math.ceil(pulseMs / 100));
      const opened = pd.send(OsdpCommand.OUT, out(OutControlCode.TEMPORARY_ON, timer));
      const ledTimer = Math.max(timer, GRANT_LED_MIN);
      const green: LedTemporary = {
        control: LedControl.TEMPORARY_SET,
        onTime: ledTimer,
        offTime: 0,
        onColor: OsdpColor.GREEN,
        offColor: OsdpColor.GREEN,
        timer: ledTimer,
      };
      // Queued behind OUT, so the turnstile opens first; LED and beep failures do not undo a grant.
      pd.send(OsdpCommand.LED, ledCommand(green)).catch(cosmetic('grant LED'));
      pd.send(OsdpCommand.BUZ, beep({ onTime: 1, offTime: 0, count: 1 })).catch(cosmetic('grant beep'));
      await opened;
    },
    async deny(reason) {
      const signal = OSDP_DENY_SIGNALS[reason];
      await Promise.all([pd.send(OsdpCommand.LED, ledCommand(signal.led)), pd.send(OsdpCommand.BUZ, beep(signal.buz))]);
    },
    async setFreePassage(on) {
      // Remembered even if the PD is unreachable now: onOnline applies it when it answers again.
      freePassage = on;
      await pd.send(
        OsdpCommand.OUT,
        out(on ? OutControlCode.PERMANENT_ON_ABORT_TIMED : OutControlCode.PERMANENT_OFF_ABORT_TIMED),
      );
    },
    onScan(listener) {
      scanListeners.add(listener);
      return () => scanListeners.delete(listener);
    },
    onScanRejected(listener) {
      rejectListeners.add(listener);
      return () => rejectListeners.delete(listener);
    },
    onOnline: online.add,
    status(): RelayStatus {
      const s = pd.state();
      const id = s.pdId;
      return {
        driver: 'osdp',
        path: bus.path,
        online: s.online,
        failSafe: true,
        freePassage,
        lastSeenAt: s.lastSeenAt,
        problem: s.problem,
        device: {
          address,
          output,
          phase: s.phase,
          vendor: id ? id.vendor.toString(16).padStart(6, '0') : null,
          model: id?.model ?? null,
          version: id?.version ?? null,
          serial: id?.serial ?? null,
          firmware: id?.firmware ?? null,
          capabilities: s.pdCap ? s.pdCap.map((c) => `${c.function}:${c.compliance}:${c.count}`).join(' ') : null,
          lastNak: s.lastNak,
          secureChannel: s.secure,
          keyConfigured: s.keyConfigured,
          restarts: s.restarts,
        },
      };
    },
    async close() {
      scanListeners.clear();
      rejectListeners.clear();
      pd.detach();
    },
  };
}
