import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import cron from 'node-cron';
import { z } from 'zod';
import { describeIssues } from './lib/zod-issues.js';
import { handheldConfigOf, handheldConfigSchema } from './handheld-config.js';
import type { HandheldSpec } from './handheld/handheld.start.js';
import { siteConfigOf, siteConfigSchema, type SiteConfig } from './site-config.js';

const timeZone = z.string().refine(isTimeZone, { message: 'fuso horário IANA desconhecido (ex.: America/Sao_Paulo)' });
const cronExpression = z
  .string()
  .refine((s) => cron.validate(s), { message: 'expressão cron inválida (ex.: */15 * * * *)' });
const seconds = (fallback: number) =>
  z.coerce.number().positive('deve ser maior que zero').max(86_400).default(fallback);

const portNumber = () =>
  z
    .string()
    .trim()
    .regex(/^\d{1,5}$/, 'use um número de porta de 0 a 65535')
    .transform(Number)
    .refine((n) => n <= 65535, 'use um número de porta de 0 a 65535');

const configSchema = z
  .object({
    GATE_DATA_DIR: z.string().min(1).refine(isDirectoryOrAbsent, 'existe e não é um diretório').default('./data'),
    GATE_HOST: z
      .string()
      .trim()
      .refine(isHost, 'use um endereço IP ou um nome de máquina (ex.: 0.0.0.0)')
      .default('0.0.0.0'),
    GATE_PORT: portNumber().default(8080),
    GATE_TIMEZONE: timeZone.default('America/Sao_Paulo'),
    GATE_TENANT: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'use letras minúsculas, dígitos e hífens')
      .optional(),
    // The gate lanes file (docs/lanes.md); without it the box serves the API only.
    GATE_CONFIG: z.string().trim().min(1).optional(),
    GATE_CONSOLE_IDLE_MIN: z.coerce
      .number()
      .int('deve ser um número inteiro de minutos')
      .min(1, 'no mínimo 1 minuto')
      .max(7 * 24 * 60, 'no máximo 7 dias')
      .default(720),
    // HTTPS served by the box itself (PEM files): keys and PINs do not cross the LAN in clear.
    GATE_TLS_CERT: z.string().trim().min(1).optional(),
    GATE_TLS_KEY: z.string().trim().min(1).optional(),
    // The site CA's dir (gate tls ca / issue, docs/handheld.md): HTTPS renewed and reloaded by the box itself.
    GATE_TLS_DIR: z.string().trim().min(1).optional(),
    // With GATE_TLS_DIR, plain HTTP serving only the CA (/ca): a handheld must get the CA before it can trust HTTPS.
    GATE_HTTP_CA_PORT: portNumber().default(8081),
    GATE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // The cloud tenant (docs/sync.md). All optional: without GATE_CLOUD_URL the box runs stand-alone.
    GATE_CLOUD_URL: z.url({ protocol: /^https?$/, message: 'use uma URL http(s)://...' }).optional(),
    GATE_CLOUD_API_KEY: z.string().trim().min(1).optional(),
    GATE_CLOUD_INTEGRATION_KEY: z.string().trim().min(1).optional(),
    GATE_CLOUD_TIMEOUT_SECONDS: seconds(15),
    GATE_SYNC_PULL_SECONDS: seconds(5),
    GATE_SYNC_PUSH_SECONDS: seconds(1),
    GATE_SYNC_REFRESH_CRON: cronExpression.default('*/15 * * * *'),
    GATE_SYNC_FULL_CRON: cronExpression.default('30 3 * * *'),
    GATE_SYNC_DAYS_AHEAD: z.coerce.number().int().min(0).max(60).default(3),
  })
  .extend(siteConfigSchema.shape)
  .extend(handheldConfigSchema.shape)
  .superRefine((c, ctx) => {
    const missing = (name: string, why: string) => ctx.addIssue({ code: 'custom', path: [name], message: why });
    siteConfigOf(c, missing);
    handheldConfigOf(c, missing);
    if (c.GATE_TLS_CERT !== undefined && c.GATE_TLS_KEY === undefined)
      missing('GATE_TLS_KEY', 'obrigatória com GATE_TLS_CERT: o arquivo PEM da chave privada do certificado');
    if (c.GATE_TLS_KEY !== undefined && c.GATE_TLS_CERT === undefined)
      missing('GATE_TLS_CERT', 'obrigatório com GATE_TLS_KEY: o arquivo PEM do certificado');
    if (c.GATE_TLS_DIR !== undefined && c.GATE_TLS_CERT !== undefined)
      missing('GATE_TLS_DIR', 'use GATE_TLS_DIR ou GATE_TLS_CERT e GATE_TLS_KEY, não os dois');
    if (c.GATE_TLS_DIR !== undefined && c.GATE_HTTP_CA_PORT !== 0 && c.GATE_HTTP_CA_PORT === c.GATE_PORT)
      missing('GATE_HTTP_CA_PORT', 'deve ser diferente de GATE_PORT (ou 0, desligada)');
    if (c.GATE_CLOUD_URL === undefined) {
      for (const name of ['GATE_CLOUD_API_KEY', 'GATE_CLOUD_INTEGRATION_KEY'] as const)
        if (c[name] !== undefined)
          missing(name, 'definida sem GATE_CLOUD_URL: informe a URL da nuvem ou remova a chave');
      return;
    }
    if (c.GATE_CLOUD_API_KEY === undefined)
      missing('GATE_CLOUD_API_KEY', 'obrigatória com GATE_CLOUD_URL (chave X-API-Key da nuvem)');
    if (c.GATE_CLOUD_INTEGRATION_KEY === undefined)
      missing('GATE_CLOUD_INTEGRATION_KEY', 'obrigatória com GATE_CLOUD_URL (chave X-Integration-Key da nuvem)');
    if (c.GATE_TENANT === undefined)
      missing('GATE_TENANT', 'obrigatório com GATE_CLOUD_URL: os dados da nuvem são gravados neste tenant');
  });

/** How the box talks to the cloud tenant; present only when GATE_CLOUD_URL is set. */
export interface CloudConfig {
  readonly url: string;
  readonly apiKey: string;
  readonly integrationKey: string;
  /** Tenant slug the cloud data lands in and whose events are pushed. */
  readonly tenant: string;
  readonly timeoutMs: number;
  readonly pullSeconds: number;
  readonly pushSeconds: number;
  readonly refreshCron: string;
  readonly fullRefreshCron: string;
  readonly daysAhead: number;
}

export interface Config {
  readonly dataDir: string;
  readonly databaseFile: string;
  readonly host: string;
  readonly port: number;
  readonly timeZone: string;
  /** Slug of the default tenant; undefined when nothing is configured (demo mode may apply). */
  readonly tenant: string | undefined;
  readonly logLevel: string;
  /** Undefined: stand-alone box, no sync worker. */
  readonly cloud: CloudConfig | undefined;
  /** The lanes file (GATE_CONFIG), absolute; undefined: no gate lanes. */
  readonly laneConfigFile: string | undefined;
  /** Minutes without a request after which a console session ends (GATE_CONSOLE_IDLE_MIN; default 720, a shift). */
  readonly consoleIdleMinutes: number;
  /**
   * GATE_TLS_CERT and GATE_TLS_KEY, absolute: the box serves HTTPS; undefined: plain HTTP. Read at start
   * (src/http/tls.ts).
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  /**
   * GATE_TLS_DIR, absolute: HTTPS with the site CA's certificate for the box (box.pem, box.key), renewed and reloaded
   * while running; the CA on plain HTTP at caPort (GATE_HTTP_CA_PORT, 0: none). Undefined: see `tls`.
   */
  readonly siteTls?: { readonly dir: string; readonly caPort: number } | undefined;
  /** The site's hub and this box's place in it (GATE_SITE_*, docs/site.md); undefined: a single box. */
  readonly site?: SiteConfig | undefined;
  /** The handhelds (GATE_HANDHELD*, docs/handheld.md); undefined: off. */
  readonly handheld?: HandheldSpec | undefined;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('GATE_') && v !== ''));
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    // Never echo a value: two of these variables are secrets.
    const lines = describeIssues(parsed.error).map((line) => `  ${line}`);
    throw new ConfigError(`Configuração inválida:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(c.GATE_DATA_DIR);
  const cloud: CloudConfig | undefined =
    c.GATE_CLOUD_URL === undefined
      ? undefined
      : Object.freeze({
          url: c.GATE_CLOUD_URL,
          apiKey: c.GATE_CLOUD_API_KEY!,
          integrationKey: c.GATE_CLOUD_INTEGRATION_KEY!,
          tenant: c.GATE_TENANT!,
          timeoutMs: c.GATE_CLOUD_TIMEOUT_SECONDS * 1000,
          pullSeconds: c.GATE_SYNC_PULL_SECONDS,
          pushSeconds: c.GATE_SYNC_PUSH_SECONDS,
          refreshCron: c.GATE_SYNC_REFRESH_CRON,
          fullRefreshCron: c.GATE_SYNC_FULL_CRON,
          daysAhead: c.GATE_SYNC_DAYS_AHEAD,
        });
  return Object.freeze({
    dataDir,
    databaseFile: path.join(dataDir, 'gate.db'),
    host: c.GATE_HOST,
    port: c.GATE_PORT,
    timeZone: c.GATE_TIMEZONE,
    tenant: c.GATE_TENANT,
    logLevel: c.GATE_LOG_LEVEL,
    cloud,
    laneConfigFile: c.GATE_CONFIG === undefined ? undefined : path.resolve(c.GATE_CONFIG),
    consoleIdleMinutes: c.GATE_CONSOLE_IDLE_MIN,
    tls:
      c.GATE_TLS_CERT === undefined
        ? undefined
        : Object.freeze({ certFile: path.resolve(c.GATE_TLS_CERT), keyFile: path.resolve(c.GATE_TLS_KEY!) }),
    siteTls:
      c.GATE_TLS_DIR === undefined
        ? undefined
        : Object.freeze({ dir: path.resolve(c.GATE_TLS_DIR), caPort: c.GATE_HTTP_CA_PORT }),
    site: siteConfigOf(c, () => undefined),
    handheld: handheldConfigOf(c, () => undefined),
  });
}

function isDirectoryOrAbsent(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return true; // created at start
  }
}

/** An IP address, or a host name (letters, digits, hyphens, dots; not a malformed dotted quad). */
function isHost(host: string): boolean {
  if (net.isIP(host) !== 0) return true;
  return (
    !/^[\d.]+$/.test(host) &&
    /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(host)
  );
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
