import type { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createBoxFromConfig } from './box-config.js';
import { loadConfig, type Config } from './config.js';

export interface RunningBox {
  url: string;
  /** Stops the box; `reason` (the signal) goes into the stop line. */
  close(reason?: string): Promise<void>;
}

/**
 * The box's logger: pretty lines on a TTY; otherwise JSON lines written synchronously to stdout (systemd's journal),
 * or to `destination` (the benchmarks' file). An asynchronous destination was measured and not kept: it cost more CPU
 * per line in all (docs/performance.md, issue 25).
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  if (destination) return pino({ level: config.logLevel }, destination);
  return pino({
    level: config.logLevel,
    ...(process.stdout.isTTY
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } }
      : {}),
  });
}

/**
 * Composition root: config → logger → the box (src/box-config.ts → src/box.ts), started. A start that fails
 * has closed whatever it had opened before this rejects.
 */
export async function main(config: Config = loadConfig(), out: Writable = process.stdout): Promise<RunningBox> {
  const logger = createLogger(config);
  const box = createBoxFromConfig(config, { logger, out, env: process.env });
  // The configured box always listens (config.host, config.port).
  const url = (await box.start()).url!;
  return { url, close: (reason) => box.close(reason) };
}
