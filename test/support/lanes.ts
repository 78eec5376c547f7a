import type { Log } from '../../src/lib/log.js';
import { openPortLink } from './port-link.js';

/** A logger that drops everything: the lanes' log is not what these tests and benchmarks look at. */
export const silentLog: Log = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};

export interface ScannerSim {
  /** Writes the code and a CR, as a line-mode scanner does; resolves once the bytes are drained. */
  scan(code: string): Promise<void>;
  close(): Promise<void>;
}

/** A line-mode QR scanner on the device side of a pty. */
export async function openScannerSim(devicePath: string): Promise<ScannerSim> {
  const link = await openPortLink(devicePath);
  return { scan: (code) => link.write(Buffer.from(`${code}\r`)), close: () => link.close() };
}
