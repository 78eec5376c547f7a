import type { GateSpec } from '../../src/gate/gate.start.js';
import { laneConfigSchema } from '../../src/gate/lanes/lane-config.js';
import { openPortLink } from './port-link.js';

export { silentLog } from '../../src/lib/log.js';

/**
 * One entry lane whose devices are nowhere (an LCUS relay and a scanner at /tmp/nowhere-<tag>-relay and
 * -scanner, which do not exist): the lane is configured and its devices stay offline. With `capacity`, the lane leads
 * into the park area of that capacity.
 */
export function offlineLane(tag: string, { name = 'entrada-1', capacity }: { name?: string; capacity?: number } = {}) {
  const spec: GateSpec = {
    config: laneConfigSchema.parse({
      ...(capacity === undefined ? {} : { areas: { parque: { capacidade: capacity } } }),
      lanes: [
        {
          name,
          direction: 'entrada',
          ...(capacity === undefined ? {} : { area: 'parque' }),
          operador: 'o',
          scanners: [{ path: `/tmp/nowhere-${tag}-scanner` }],
          relay: { driver: 'lcus', path: `/tmp/nowhere-${tag}-relay` },
        },
      ],
    }),
  };
  return spec;
}

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
