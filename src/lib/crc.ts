// The CRCs of the serial protocols: the bridge board's (firmware-bridge/src/protocol.c) and OSDP's
// are the same CRC-16 with different initial values. Pinned by firmware-bridge/vectors.json and by
// libosdp's vectors (test/gate/bridge-codec.test.ts, test/gate/osdp-codec.test.ts).

/** CRC-16 with polynomial 0x1021, no reflection, no final xor; only the initial value differs by protocol. */
export function crc16Ccitt(data: Uint8Array, init: number): number {
  let crc = init;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** CRC-16/CCITT-FALSE (init 0xFFFF): the bridge board's. */
export const crc16CcittFalse = (data: Uint8Array): number => crc16Ccitt(data, 0xffff);
