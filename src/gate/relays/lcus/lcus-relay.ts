import type { ByteLink } from '../../serial/byte-link.js';
import type { LcusRelayConfig } from '../relay-config.js';
import type { Log } from '../../../lib/log.js';
import { onlineSignal, type RelayDriver, type RelayStatus } from '../relay.js';
import { realTimers, type TimerFns } from '../../../lib/timers.js';

// CH340 "LCUS" USB relay modules: 9600 8N1, one 4-byte command per switch, no reply of any kind.
// The box cannot tell a working relay from a dead one, so this driver only knows what it asked for.

export const LCUS_HEAD = 0xa0;

export const LCUS_WARNING =
  'Relé LCUS é somente escrita: o sistema não detecta falhas (módulo sem energia, relé queimado, cabo solto) ' +
  'e não há modo de falha seguro; se a porta cair com o relé ligado, ele pode continuar ligado.';

/** `A0 channel state checksum`, checksum = (A0 + channel + state) & 0xFF; state 1 = on, 0 = off. */
export function lcusCommand(channel: number, on: boolean): Uint8Array {
  if (!Number.isInteger(channel) || channel < 1 || channel > 8)
    throw new RangeError(`LCUS channel must be 1..8, got ${channel}`);
  const state = on ? 1 : 0;
  return Uint8Array.from([LCUS_HEAD, channel, state, (LCUS_HEAD + channel + state) & 0xff]);
}

export interface LcusRelayDeps {
  link: ByteLink;
  config: LcusRelayConfig;
  log: Log;
  timers?: TimerFns;
}

/** Closing the relay switches it off and closes the link. */
export function createLcusRelay({ link, config, log, timers = realTimers }: LcusRelayDeps): RelayDriver {
  const { channel, path } = config;
  let freePassage = false;
  let pulseTimer: unknown = null;
  let closed = false;
  // What was last asked of the relay (the module itself cannot be asked).
  let relayOn = false;

  log.warn({ path, channel }, LCUS_WARNING);

  async function set(on: boolean): Promise<void> {
    relayOn = on;
    await link.write(lcusCommand(channel, on));
  }

  function cancelPulse(): void {
    if (pulseTimer === null) return;
    timers.clearTimeout(pulseTimer);
    pulseTimer = null;
  }

  // Write-only: online is the port being open, nothing more can be known.
  const online = onlineSignal(log, path);
  // The module keeps its last state across a lost port, so the desired one is written again on every
  // (re)open: a pulse cut short by an unplug must not leave the turnstile free.
  const unsubscribe = link.onState((state) => {
    if (closed) return;
    online.set(state === 'up');
    if (state !== 'up') return;
    cancelPulse();
    set(freePassage).catch((err: unknown) => log.error({ err, path, channel }, 'LCUS relay: restoring state failed'));
  });
  if (link.isUp()) {
    online.set(true);
    set(false).catch((err: unknown) => log.error({ err, path, channel }, 'LCUS relay: initial off failed'));
  }

  return {
    async grant(_direction, pulseMs) {
      if (closed) throw new Error('relé LCUS fechado');
      cancelPulse();
      await set(true);
      pulseTimer = timers.setTimeout(() => {
        pulseTimer = null;
        if (freePassage || closed) return;
        set(false).catch((err: unknown) =>
          log.error({ err, path, channel }, 'LCUS relay: switching off after the pulse failed'),
        );
      }, pulseMs);
    },
    deny(reason) {
      // The module has only the relay: a deny shows nothing at the turnstile.
      log.debug?.({ path, channel, reason }, 'LCUS relay: deny has no signal on this device');
    },
    async setFreePassage(on) {
      freePassage = on;
      cancelPulse();
      await set(on);
    },
    onOnline: online.add,
    status(): RelayStatus {
      const up = link.isUp();
      return {
        driver: 'lcus',
        path,
        online: up,
        failSafe: false,
        freePassage,
        lastSeenAt: null,
        problem: up ? LCUS_WARNING : `Porta serial ${path} desconectada. ${LCUS_WARNING}`,
        device: { channel, relayOn },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      cancelPulse();
      unsubscribe();
      if (link.isUp())
        await set(false).catch((err: unknown) =>
          log.warn({ err, path, channel }, 'LCUS relay: switching off on close failed'),
        );
      await link.close();
    },
  };
}
