import type { Writable } from 'node:stream';
import pino from 'pino';
import { createBox } from './box-lifecycle.js';
import { loadConfig, type Config } from './config.js';

export interface RunningBox {
  url: string;
  /** Stops the box; `reason` (the signal) goes into the stop line. */
  close(reason?: string): Promise<void>;
}

/**
 * Composition root: config → logger → the box (src/box-lifecycle.ts), started. A start that fails
 * has closed whatever it had opened before this rejects.
 */
export async function main(config: Config = loadConfig(), out: Writable = process.stdout): Promise<RunningBox> {
  const logger = pino({
    level: config.logLevel,
    ...(process.stdout.isTTY
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } }
      : {}),
  });
  const box = createBox(config, { logger, out, env: process.env });
  const { url } = await box.start();
  return { url, close: (reason) => box.close(reason) };
}
