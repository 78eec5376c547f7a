import pino from 'pino';
import { assembleBox } from './box.js';
import { createClock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/open.js';

export interface RunningBox {
  url: string;
  close(): Promise<void>;
}

/** Composition root: config → logger → db + migrate → services → app → listen. */
export async function main(config: Config = loadConfig()): Promise<RunningBox> {
  const logger = pino({
    level: config.logLevel,
    ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } } : {}),
  });
  const db = openDatabase(config.databaseFile);
  await migrateToLatest(db);
  const clock = createClock(config.timeZone);
  const { app } = await assembleBox({ db, clock, logger });
  const url = await app.listen({ host: config.host, port: config.port });
  logger.info({ url, data: config.databaseFile, timeZone: config.timeZone }, 'gate appliance listening');
  return {
    url,
    async close() {
      await app.close();
      db.close();
    },
  };
}
