import { OsdpCommand, OsdpReply, type OsdpPacket } from './osdp-codec.js';
import { OsdpNakReason, nakReasonText, parsePdCap, parsePdId } from './osdp-messages.js';
import { Scs } from './osdp-secure.js';
import { osdpCommandName, OsdpCommandError } from './osdp-types.js';
import { enterRestore, goOffline, restart, wrongKey } from './osdp-pd-phases.js';
import type { PdState } from './osdp-pd-state.js';

// What a PD's replies mean, by phase (osdp-pd.ts has the whole picture).

export function onReply(s: PdState, command: number, p: OsdpPacket): void {
  const { sc } = s;
  let data = p.data;
  const macked = (p.scb?.type ?? 0) >= Scs.REPLY_MAC;
  if (sc?.active && macked) {
    const opened = sc.open(p);
    if (!opened.ok) return restart(s, opened.why === 'mac' ? 'MAC da resposta inválido' : 'bloco cifrado inválido');
    data = opened.data;
  } else if (macked) {
    return restart(s, 'resposta em canal seguro sem sessão');
  } else if (sc?.active && p.code !== OsdpReply.NAK && !(command === OsdpCommand.KEYSET && p.code === OsdpReply.ACK)) {
    // A PD that dropped the session answers NAKs in clear (libosdp); anything else in clear is not ours.
    return restart(s, 'resposta sem canal seguro durante a sessão');
  }
  if (p.code === OsdpReply.NAK) return onNak(s, command, data[0] ?? 0);
  if (s.phase === 'restore' || s.phase === 'online') return onOnlineReply(s, command, p.code, { ...p, data });
  handshakeStep(s, p.code, data);
}

/** One handshake step; `code` null for a NAK to ID or CAP. */
export function handshakeStep(s: PdState, code: number | null, data: Uint8Array): void {
  const { log, path } = s.hooks;
  const { sc, address } = s;
  switch (s.phase) {
    case 'offline': // the probe was answered
    case 'id':
      if (code === OsdpReply.PDID) s.pdId = parsePdId(data);
      else log.warn({ path, address, code }, 'OSDP ID not answered with PDID');
      s.phase = 'cap';
      return;
    case 'cap':
      if (code === OsdpReply.PDCAP) s.pdCap = parsePdCap(data);
      else log.warn({ path, address, code }, 'OSDP CAP not answered with PDCAP');
      if (sc) s.phase = 'chlng';
      else enterRestore(s);
      return;
    case 'chlng':
      if (code === OsdpReply.CCRYPT && sc!.acceptCcrypt(data)) s.phase = 'scrypt';
      else wrongKey(s);
      return;
    case 'scrypt':
      if (code !== OsdpReply.RMAC_I || !sc!.acceptRmacI(data)) return wrongKey(s);
      if (sc!.needsKeyset) s.phase = 'keyset';
      else enterRestore(s);
      return;
    case 'keyset':
      if (code !== OsdpReply.ACK) return goOffline(s, `${s.who} não confirmou a nova chave do canal seguro`);
      sc!.keysetDone();
      s.keyWritten = true;
      log.info({ path, address }, 'OSDP PD took the configured SCBK: starting a session with it');
      s.phase = 'chlng';
      return;
  }
}

export function onOnlineReply(s: PdState, command: number, code: number, p: OsdpPacket): void {
  const pending = s.current;
  s.current = null;
  if (code === OsdpReply.ACK || code === OsdpReply.OSTATR) {
    if (s.phase === 'online') s.problem = null;
    return pending?.resolve(p);
  }
  if (command === OsdpCommand.POLL || code === OsdpReply.RAW || code === OsdpReply.FMT || code === OsdpReply.KEYPAD) {
    s.handlers.onPollReply?.(p);
    // A read in place of a command's ACK: the command is sent again, with a new sequence.
    if (pending) s.queue.unshift(pending);
    return;
  }
  pending?.reject(
    new OsdpCommandError(
      `leitor OSDP ${s.address}: resposta inesperada 0x${code.toString(16)} a ${osdpCommandName(command)}`,
      'unexpected',
    ),
  );
}

export function onNak(s: PdState, command: number, reason: number): void {
  const { phase, who, address } = s;
  const text = nakReasonText(reason);
  s.lastNak = `${osdpCommandName(command)}: ${text}`;
  if (reason === OsdpNakReason.SEQUENCE || reason === OsdpNakReason.CHECK_CHARACTER)
    return restart(s, `NAK ${reason} a ${osdpCommandName(command)}`);
  // Some readers answer ID or CAP with a NAK; what matters here is that they answer.
  if (phase === 'offline' || phase === 'id' || phase === 'cap') return handshakeStep(s, null, new Uint8Array(0));
  if (phase === 'chlng' || phase === 'scrypt') {
    if (reason === OsdpNakReason.SC_UNSUPPORTED && phase === 'chlng')
      return goOffline(s, `${who} não suporta canal seguro (secure channel), mas a pista tem chave configurada`);
    return wrongKey(s);
  }
  if (phase === 'keyset') return goOffline(s, `${who} recusou a nova chave do canal seguro (${text})`);
  if (reason === OsdpNakReason.SC_CONDITIONS) {
    if (s.sc) return restart(s, `NAK ${reason}: sessão segura perdida`);
    return goOffline(s, `${who} exige canal seguro (secure channel): configure a chave (scbk) da pista`);
  }
  s.hooks.log.warn({ path: s.hooks.path, address, command: osdpCommandName(command), reason, text }, 'OSDP NAK');
  const pending = s.current;
  s.current = null;
  pending?.reject(
    new OsdpCommandError(`leitor OSDP ${address} recusou ${osdpCommandName(command)}: ${text}`, 'nak', reason),
  );
}
