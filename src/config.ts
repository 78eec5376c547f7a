import path from 'node:path';
import { z } from 'zod';

const timeZone = z.string().refine(isTimeZone, { message: 'fuso horário IANA desconhecido (ex.: America/Sao_Paulo)' });

const configSchema = z.object({
  GATE_DATA_DIR: z.string().min(1).default('./data'),
  GATE_HOST: z.string().min(1).default('0.0.0.0'),
  GATE_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GATE_TIMEZONE: timeZone.default('America/Sao_Paulo'),
  GATE_TENANT: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'use letras minúsculas, dígitos e hífens').optional(),
  GATE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  readonly dataDir: string;
  readonly databaseFile: string;
  readonly host: string;
  readonly port: number;
  readonly timeZone: string;
  /** Slug of the default tenant; undefined when nothing is configured (demo mode may apply). */
  readonly tenant: string | undefined;
  readonly logLevel: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('GATE_') && v !== ''));
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Configuração inválida:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(c.GATE_DATA_DIR);
  return Object.freeze({
    dataDir,
    databaseFile: path.join(dataDir, 'gate.db'),
    host: c.GATE_HOST,
    port: c.GATE_PORT,
    timeZone: c.GATE_TIMEZONE,
    tenant: c.GATE_TENANT,
    logLevel: c.GATE_LOG_LEVEL,
  });
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
