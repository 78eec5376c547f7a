import { osdpCommandName, OsdpCommandError } from './osdp-types.js';
import { failAll, schedule, type PdState } from './osdp-pd-state.js';

// A PD's moves between phases (osdp-pd.ts has the whole picture): online, restore, offline, a
// restart, a wrong key.

/** Restarts in a row without reaching online before the PD is left offline. */
const MAX_RESTARTS = 3;

export function becomeOnline(s: PdState): void {
  const { log, path } = s.hooks;
  s.phase = 'online';
  s.problem = null;
  s.pollDue = true;
  s.restartsInRow = 0;
  if (s.logged !== 'online')
    log.info({ path, address: s.address, pdId: s.pdId, secure: s.sc?.active ?? false }, 'OSDP PD online');
  s.logged = 'online';
  s.handlers.onOnline?.(true);
}

export function enterRestore(s: PdState): void {
  const { log, path } = s.hooks;
  s.phase = 'restore';
  s.restore = (s.handlers.restore?.() ?? []).map((c) => ({
    ...c,
    restoring: true,
    resolve: () => {},
    // Why is logged where it happens (a NAK, the PD going offline).
    reject: (err: Error) => log.debug?.({ err, path, address: s.address }, 'OSDP output not restored'),
  }));
}

export function goOffline(s: PdState, why: string | null): void {
  const { log, path } = s.hooks;
  const reason =
    why ??
    (s.badReply ? `${s.who} não responde corretamente (respostas inválidas: ${s.badReply})` : `${s.who} não responde`);
  s.phase = 'offline';
  s.seq = null;
  s.sc?.reset();
  s.problem = reason;
  failAll(s, new OsdpCommandError(`leitor OSDP ${s.address} offline`, 'offline'));
  if (s.logged !== reason) log.warn({ path, address: s.address, problem: reason }, 'OSDP PD offline');
  s.logged = reason;
  schedule(s, 'probe', s.hooks.offlineRetryMs);
  s.handlers.onOnline?.(false);
}

export function restart(s: PdState, why: string): void {
  const { log, path, timers } = s.hooks;
  s.restarts++;
  if (++s.restartsInRow > MAX_RESTARTS) return goOffline(s, `${s.who} reinicia repetidamente (${why})`);
  log.warn(
    { path, address: s.address, why },
    'OSDP PD restarted or lost its session: starting over, then restoring its outputs',
  );
  const current = s.current;
  if (current && !current.restoring) {
    if (current.retried)
      current.reject(
        new OsdpCommandError(
          `leitor OSDP ${s.address} reiniciou duas vezes durante ${osdpCommandName(current.code)}`,
          'offline',
        ),
      );
    else s.queue.unshift({ ...current, retried: true });
  }
  s.current = null;
  s.restore = [];
  const wasOnline = s.phase === 'online';
  s.phase = 'id';
  s.seq = null;
  s.sc?.reset();
  s.pollDue = false;
  timers.clearTimeout(s.timer);
  s.problem = `${s.who} reiniciou ou perdeu a sessão: restabelecendo`;
  s.logged = s.problem;
  if (wasOnline) s.handlers.onOnline?.(false);
}

export function wrongKey(s: PdState): void {
  if (s.sc!.tryNextKey()) s.phase = 'chlng';
  else goOffline(s, `${s.who}: a chave do canal seguro (SCBK) não confere com a do leitor`);
}

/** The port was lost (why set) or the bus is closing (why null): every PD starts over at ID. */
export function abort(s: PdState, err: OsdpCommandError, why: string | null): void {
  s.hooks.timers.clearTimeout(s.timer);
  s.phase = 'id';
  s.seq = null;
  s.sc?.reset();
  s.problem = why;
  s.logged = why;
  failAll(s, err);
  if (why !== null) s.handlers.onOnline?.(false);
}
