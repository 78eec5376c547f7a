import { encodeOsdp, OsdpCommand, OsdpReply, type OsdpPacket } from '../../src/gate/relays/osdp/osdp-codec.js';
import { OsdpNakReason } from '../../src/gate/relays/osdp/osdp-messages.js';
import {
  SCBK_DEFAULT,
  Scs,
  computeMac,
  cpCryptogram,
  decryptData,
  deriveSessionKeys,
  encryptData,
  initialRmac,
  newRandom,
  pdCryptogram,
  sameBytes,
  type SessionKeys,
} from '../../src/gate/relays/osdp/osdp-secure.js';

/**
 * The link layer of one simulated OSDP peripheral: sequence numbers and the secure channel, as
 * libosdp's PD does them (goToMain/libosdp @ 45d03d81c75f: src/osdp_phy.c phy_check_packet and
 * osdp_phy_decode_packet in PD mode, src/osdp_pd.c pd_decode_command / pd_build_reply /
 * osdp_pd_update, src/osdp_sc.c). The quirks the box must live with are kept:
 * - a NAK for a sequence error carries the PD's OWN next sequence number, not the command's
 *   (phy_get_next_seq_number in osdp_phy_packet_init), so after a restart it says 0, then 1...;
 * - a command with a bad CRC gets no answer at all, and the PD also drops its secure session
 *   (pd_error_reset);
 * - sequence 0 restarts the sequence and drops the secure session;
 * - a repeated sequence with the same command re-sends the cached reply bytes unchanged;
 * - with the secure channel enforced, only ID, CAP, CHLNG and SCRYPT are answered in clear,
 *   everything else gets NAK 6; a plain packet while the session is active gets NAK 6; a bad MAC
 *   drops the session and gets NAK 6; a NAK while the session is active goes out secured;
 * - SCBK-D is used only in install mode, when the CP asks for it (key byte 0 in SCS_11/13);
 *   KEYSET takes effect after its ACK is sent, and then the session is dropped;
 * - the session times out after 8 s without a good command (OSDP_PD_SC_TIMEOUT_MS).
 */

export interface PdSecurity {
  /** The PD's SCBK (kept across power cuts, like its flash); null = none set yet. */
  scbk: Uint8Array | null;
  installMode: boolean;
  enforceSecure: boolean;
  /** CAP function 9 with compliance 1; without it CHLNG/SCRYPT/KEYSET get NAK 5. */
  capable: boolean;
}

export interface Reply {
  code: number;
  data: Uint8Array;
}

interface Session {
  keys: SessionKeys;
  cpRandom: Uint8Array;
  pdRandom: Uint8Array;
  useDefault: boolean;
  active: boolean;
  cMac: Uint8Array;
  rMac: Uint8Array;
  lastGoodAt: number;
}

const SC_TIMEOUT_MS = 8000;
const nak = (reason: number): Reply => ({ code: OsdpReply.NAK, data: Uint8Array.of(reason) });
/** libosdp's phy_get_next_seq_number: -1 (after a reset) gives 0, then 1, 2, 3, 1... */
const nextSeq = (seq: number) => (seq + 1 > 3 ? 1 : seq + 1);

export interface PdLink {
  /**
   * One good-CRC packet addressed to this PD: the bytes to send back, after calling `act` (with
   * the data decrypted) for a command the PD accepts; `repeat` when they are the cached reply.
   */
  receive(p: OsdpPacket): { bytes: Uint8Array; repeat: boolean };
  /** A packet with a bad CRC/checksum on the bus. */
  garbled(): void;
  /** Power cut: sequence, session and cached reply are gone; the key stays. */
  reset(): void;
  sessionActive(): boolean;
}

export function createPdLink(address: number, security: PdSecurity, act: (p: OsdpPacket) => Reply): PdLink {
  let seq = -1;
  let cached: { code: number; bytes: Uint8Array } | null = null;
  let session: Session | null = null;
  let pendingKey: Uint8Array | null = null;

  const deactivate = () => void (session = null);
  const active = () => session?.active === true;

  function respond(
    cmdCode: number,
    sequence: number,
    reply: Reply,
    scb: OsdpPacket['scb'] = null,
  ): { bytes: Uint8Array; repeat: boolean } {
    const packet: OsdpPacket = {
      address,
      reply: true,
      sequence,
      useCrc: true,
      code: reply.code,
      data: reply.data,
      scb,
    };
    let sign: ((signed: Uint8Array) => Uint8Array) | undefined;
    if (!scb && active()) {
      const s = session!;
      packet.scb = { type: reply.data.length > 0 ? Scs.REPLY_ENC : Scs.REPLY_MAC, data: new Uint8Array(0) };
      if (reply.data.length > 0) packet.data = encryptData(s.keys, s.cMac, reply.data);
      sign = (signed) => (s.rMac = computeMac(s.keys, s.cMac, signed));
    }
    const bytes = encodeOsdp(packet, sign ? { sign } : {});
    cached = { code: cmdCode, bytes };
    seq = nextSeq(seq);
    if (cmdCode === OsdpCommand.KEYSET && reply.code === OsdpReply.ACK && pendingKey) {
      security.scbk = pendingKey;
      security.installMode = false;
      pendingKey = null;
      deactivate();
    }
    return { bytes, repeat: false };
  }

  /** osdp_phy_decode_packet, PD side: null when the packet is fine, else the NAK reason. */
  function unwrap(p: OsdpPacket): { data: Uint8Array } | { nak: number } {
    const scb = p.scb;
    if (!scb) return active() ? { nak: OsdpNakReason.SC_CONDITIONS } : { data: p.data };
    if (!security.capable) return { nak: OsdpNakReason.SC_UNSUPPORTED };
    if (scb.type < Scs.CHLNG || scb.type > Scs.REPLY_ENC) return { nak: OsdpNakReason.SC_CONDITIONS };
    if (!active() && scb.type > Scs.RMAC_I) return { nak: OsdpNakReason.SC_CONDITIONS };
    if (scb.type < Scs.CMD_MAC) return { data: p.data };
    const s = session!;
    const mac = computeMac(s.keys, s.rMac, p.signed!);
    if (!sameBytes(mac.subarray(0, 4), p.mac!)) {
      deactivate();
      return { nak: OsdpNakReason.SC_CONDITIONS };
    }
    s.cMac = mac;
    if (scb.type !== Scs.CMD_ENC) return { data: p.data };
    const plain = decryptData(s.keys, s.rMac, p.data);
    if (!plain) {
      deactivate();
      return { nak: OsdpNakReason.SC_CONDITIONS };
    }
    return { data: plain };
  }

  function handshake(p: OsdpPacket, data: Uint8Array): { reply: Reply; scb: OsdpPacket['scb'] } {
    const keyByte = p.scb?.data[0] ?? 1;
    if (p.code === OsdpCommand.CHLNG) {
      if (data.length !== 8) return { reply: nak(OsdpNakReason.COMMAND_LENGTH), scb: null };
      deactivate();
      const useDefault = security.installMode && keyByte === 0;
      const key = useDefault ? SCBK_DEFAULT : security.scbk;
      if (!key) return { reply: nak(OsdpNakReason.SC_CONDITIONS), scb: null };
      const cpRandom = data.slice();
      const pdRandom = newRandom();
      const keys = deriveSessionKeys(key, cpRandom);
      session = {
        keys,
        cpRandom,
        pdRandom,
        useDefault,
        active: false,
        cMac: new Uint8Array(16),
        rMac: new Uint8Array(16),
        lastGoodAt: performance.now(),
      };
      const uid = new Uint8Array(8);
      const body = Uint8Array.from([...uid, ...pdRandom, ...pdCryptogram(keys, cpRandom, pdRandom)]);
      return {
        reply: { code: OsdpReply.CCRYPT, data: body },
        scb: { type: Scs.CCRYPT, data: Uint8Array.of(useDefault ? 0 : 1) },
      };
    }
    // SCRYPT
    if (data.length !== 16) return { reply: nak(OsdpNakReason.COMMAND_LENGTH), scb: null };
    const s = session;
    if (!s || s.active) return { reply: nak(OsdpNakReason.SC_CONDITIONS), scb: null };
    const expected = cpCryptogram(s.keys, s.pdRandom, s.cpRandom);
    if (!sameBytes(expected, data)) return { reply: nak(OsdpNakReason.SC_UNSUPPORTED), scb: null };
    s.rMac = initialRmac(s.keys, data);
    s.active = true;
    s.lastGoodAt = performance.now();
    return {
      reply: { code: OsdpReply.RMAC_I, data: s.rMac.slice() },
      scb: { type: Scs.RMAC_I, data: Uint8Array.of(1) },
    };
  }

  return {
    receive(p) {
      if (active() && performance.now() - session!.lastGoodAt > SC_TIMEOUT_MS) deactivate();
      // phy_check_packet, PD mode.
      if (p.sequence === 0) {
        seq = -1;
        cached = null;
        deactivate();
      } else if (p.sequence === seq) {
        if (cached && cached.code === p.code) return { bytes: cached.bytes, repeat: true };
        cached = null;
        seq = seq - 1 < 1 ? 3 : seq - 1;
      }
      // The reply always carries the PD's own next number (0 right after a restart).
      const own = nextSeq(seq);
      if (own !== p.sequence) return respond(p.code, own, nak(OsdpNakReason.SEQUENCE));
      const opened = unwrap(p);
      if ('nak' in opened) return respond(p.code, own, nak(opened.nak));
      if (
        security.enforceSecure &&
        !active() &&
        ![OsdpCommand.ID, OsdpCommand.CAP, OsdpCommand.CHLNG, OsdpCommand.SCRYPT].includes(p.code as never)
      ) {
        return respond(p.code, own, nak(OsdpNakReason.SC_CONDITIONS));
      }
      if (active()) session!.lastGoodAt = performance.now();
      if (p.code === OsdpCommand.CHLNG || p.code === OsdpCommand.SCRYPT || p.code === OsdpCommand.KEYSET) {
        if (!security.capable) return respond(p.code, own, nak(OsdpNakReason.SC_UNSUPPORTED));
      }
      if (p.code === OsdpCommand.CHLNG || p.code === OsdpCommand.SCRYPT) {
        const { reply, scb } = handshake(p, opened.data);
        return respond(p.code, own, reply, scb);
      }
      if (p.code === OsdpCommand.KEYSET) {
        const d = opened.data;
        if (d.length !== 18 || d[0] !== 1 || d[1] !== 16)
          return respond(p.code, own, nak(OsdpNakReason.COMMAND_LENGTH));
        if (!active()) return respond(p.code, own, nak(OsdpNakReason.SC_CONDITIONS));
        pendingKey = d.slice(2);
        return respond(p.code, own, { code: OsdpReply.ACK, data: new Uint8Array(0) });
      }
      return respond(p.code, own, act({ ...p, data: opened.data }));
    },
    garbled() {
      deactivate();
    },
    reset() {
      seq = -1;
      cached = null;
      pendingKey = null;
      deactivate();
    },
    sessionActive: active,
  };
}
