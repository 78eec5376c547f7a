import fs from 'node:fs';
import path from 'node:path';
import { openScannerSim, type ScannerSim } from './lanes.js';
import { openLcusSim, type LcusSim } from './lcus-sim.js';
import { openPtyPair, type PtyPair } from './pty.js';

// One entrance lane per box of a test site, on real ptys (socat): a line-mode scanner the test scans on, and an
// LCUS relay module that records every opening. The ptys outlive the box's restarts, like the devices of a real lane.

export interface SiteLane {
  /** The lane's name in the box (`entrada-<box>`): the terminal of what it records. */
  name: string;
  /** The lanes file (GATE_CONFIG). */
  file: string;
  relay: LcusSim;
  /** Times the relay opened (channel 1 on): the lane's grants since the rig was made. */
  grants(): number;
  /** Scans `code` on the lane's scanner (the box must have the port open: SiteBox.lane.scan waits for it). */
  scanRaw(code: string): Promise<void>;
  close(): Promise<void>;
}

/** Makes the lane's devices and writes its lanes file into the box's data dir. */
export async function openSiteLane(box: string, dataDir: string): Promise<SiteLane> {
  const opened: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const part of opened.reverse()) await part.close().catch(() => undefined);
  };
  try {
    const scannerPty: PtyPair = await openPtyPair(`scanner-${box}`);
    opened.push(scannerPty);
    const relayPty: PtyPair = await openPtyPair(`relay-${box}`);
    opened.push(relayPty);
    const relay = await openLcusSim(relayPty.device);
    opened.push(relay);
    const scanner: ScannerSim = await openScannerSim(scannerPty.device);
    opened.push(scanner);
    const name = `entrada-${box}`;
    const file = path.join(dataDir, 'pistas.yaml');
    fs.writeFileSync(
      file,
      [
        'lanes:',
        `  - name: ${name}`,
        '    direction: entrada',
        `    operador: Catraca ${box}`,
        // Every scan decides: a race scans the same code at once at several boxes, never twice at one lane.
        '    debounceMs: 0',
        '    scanners:',
        `      - path: ${scannerPty.box}`,
        '    relay:',
        '      driver: lcus',
        `      path: ${relayPty.box}`,
        '      pulseMs: 100',
        '',
      ].join('\n'),
    );
    return {
      name,
      file,
      relay,
      grants: () => relay.changes.filter((c) => c.channel === 1 && c.on).length,
      scanRaw: (code) => scanner.scan(code),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
