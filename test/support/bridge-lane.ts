import { laneConfigSchema } from '../../src/gate/lanes/lane-config.js';
import { startBridgeBoard, type BridgeBoard } from './bridge-board.js';
import type { TestBoxOptions } from './box.js';
import { openPtyPair, type PtyPair } from './pty.js';

export interface BridgeLaneRig {
  scannerPty: PtyPair;
  bridgePty: PtyPair;
  /** The host-built bridge firmware on the relay pty. */
  board: BridgeBoard;
  /** For createTestBox / startConsoleBox: starts the lane on the box's check-in service. */
  lanes: NonNullable<TestBoxOptions['lanes']>;
  /** Stops the board and closes both ptys (close the box and the scanner first). */
  close(): Promise<void>;
}

/**
 * One entrance lane, "entrada-1" (operador "Catraca Norte"), on real ptys: a CR-terminated scanner
 * and the bridge board as its relay, with a 1.5 s passage window.
 */
export async function startBridgeLaneRig(): Promise<BridgeLaneRig> {
  const opened: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const part of opened.reverse()) await part.close();
  };
  try {
    const scannerPty = await openPtyPair('scanner');
    opened.push(scannerPty);
    const bridgePty = await openPtyPair('bridge');
    opened.push(bridgePty);
    const board = await startBridgeBoard(bridgePty.device);
    opened.push({ close: () => board.stop() });
    const config = laneConfigSchema.parse({
      lanes: [
        {
          name: 'entrada-1',
          direction: 'entrada',
          operador: 'Catraca Norte',
          debounceMs: 0,
          scanners: [{ path: scannerPty.box, suffix: 'cr' }],
          relay: { driver: 'bridge', path: bridgePty.box, pulseMs: 200, heartbeatTimeoutMs: 1000 },
          passage: { timeoutMs: 1500 },
        },
      ],
    });
    return {
      scannerPty,
      bridgePty,
      board,
      lanes: { config },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
