import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

// The site's settings (docs/site.md), read with the rest of the configuration (src/config.ts); the site link and
// `gate site hub-config` live in src/site/. All optional: with GATE_SITE_NATS_URLS unset the box is a single box
// and opens nothing.

/** A box's name in the site: what GATE_SITE_BOX and GATE_SITE_BOXES say, and its NATS user `gate-<name>`. */
export const BOX_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const natsUser = (box: string) => `gate-${box}`;

const HUB_URL = /^(nats|tls):\/\/[^\s/@]+(:\d{1,5})?$/;

const boxName = z.string().trim().regex(BOX_NAME, 'use letras minúsculas, dígitos e hífens, até 32 (ex.: norte)');

export const siteConfigSchema = z.object({
  GATE_SITE_NATS_URLS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(HUB_URL, 'use nats://host:porta ou tls://host:porta, sem usuário nem senha'))
        .min(1, 'informe ao menos um endereço do hub'),
    )
    .optional(),
  GATE_SITE_BOX: boxName.optional(),
  GATE_SITE_BOXES: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
    )
    .pipe(z.array(boxName).min(1))
    .optional(),
  GATE_SITE_NATS_USER: z.string().trim().min(1).optional(),
  GATE_SITE_NATS_PASSWORD_FILE: z.string().trim().min(1).optional(),
  GATE_SITE_NATS_CA: z.string().trim().min(1).optional(),
  GATE_SITE_CAS_TIMEOUT_MS: z.coerce
    .number()
    .int('deve ser um número inteiro de milissegundos')
    .min(10, 'no mínimo 10 ms')
    .max(5000, 'no máximo 5000 ms')
    .default(150),
  GATE_SITE_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
});

export interface SiteConfig {
  readonly urls: readonly string[];
  /** This box's name in the site. */
  readonly box: string;
  /** Every box of the site, this one included: messages from any other origin are refused. */
  readonly boxes: readonly string[];
  readonly user: string;
  /** Absolute; read at start, never logged. */
  readonly passwordFile: string;
  /** The site's CA (PEM), absolute: the hub is reached over TLS and checked against it. */
  readonly caFile: string | undefined;
  /** How long a claim waits for the hub before the box decides alone. */
  readonly casTimeoutMs: number;
  /** JetStream replicas of the site's stream: 1 on one hub; 3 on a cluster of nats-server ≥ 2.10. */
  readonly replicas: number;
}

type SiteVars = z.output<typeof siteConfigSchema>;

/** The site's part of the configuration, or undefined when unset; adds an issue per problem (never a value). */
export function siteConfigOf(c: SiteVars, problem: (name: string, why: string) => void): SiteConfig | undefined {
  if (c.GATE_SITE_NATS_URLS === undefined) {
    for (const name of ['GATE_SITE_BOX', 'GATE_SITE_BOXES', 'GATE_SITE_NATS_PASSWORD_FILE'] as const)
      if (c[name] !== undefined) problem(name, 'definida sem GATE_SITE_NATS_URLS: informe o hub ou remova a variável');
    return undefined;
  }
  if (c.GATE_SITE_BOX === undefined) problem('GATE_SITE_BOX', 'obrigatório com GATE_SITE_NATS_URLS (ex.: norte)');
  if (c.GATE_SITE_BOXES === undefined)
    problem('GATE_SITE_BOXES', 'obrigatório com GATE_SITE_NATS_URLS: todas as caixas do site (ex.: norte,sul)');
  else if (c.GATE_SITE_BOX !== undefined && !c.GATE_SITE_BOXES.includes(c.GATE_SITE_BOX))
    problem('GATE_SITE_BOXES', `deve incluir esta caixa (${c.GATE_SITE_BOX})`);
  if (c.GATE_SITE_NATS_PASSWORD_FILE === undefined)
    problem('GATE_SITE_NATS_PASSWORD_FILE', 'obrigatório com GATE_SITE_NATS_URLS: o arquivo da senha desta caixa');
  else if (!readable(c.GATE_SITE_NATS_PASSWORD_FILE))
    problem('GATE_SITE_NATS_PASSWORD_FILE', 'arquivo inexistente ou sem permissão de leitura');
  if (c.GATE_SITE_NATS_CA !== undefined && !readable(c.GATE_SITE_NATS_CA))
    problem('GATE_SITE_NATS_CA', 'arquivo inexistente ou sem permissão de leitura');
  // The NATS client ignores the scheme: tls:// without the CA would join a hub without TLS, in plain text.
  else if (c.GATE_SITE_NATS_CA === undefined && c.GATE_SITE_NATS_URLS.some((u) => u.startsWith('tls://')))
    problem('GATE_SITE_NATS_CA', 'obrigatório com tls:// em GATE_SITE_NATS_URLS: a CA do site (docs/site.md)');
  if (!c.GATE_SITE_BOX || !c.GATE_SITE_BOXES || !c.GATE_SITE_NATS_PASSWORD_FILE) return undefined;
  return Object.freeze({
    urls: Object.freeze([...c.GATE_SITE_NATS_URLS]),
    box: c.GATE_SITE_BOX,
    boxes: Object.freeze([...c.GATE_SITE_BOXES]),
    user: c.GATE_SITE_NATS_USER ?? natsUser(c.GATE_SITE_BOX),
    passwordFile: path.resolve(c.GATE_SITE_NATS_PASSWORD_FILE),
    caFile: c.GATE_SITE_NATS_CA === undefined ? undefined : path.resolve(c.GATE_SITE_NATS_CA),
    casTimeoutMs: c.GATE_SITE_CAS_TIMEOUT_MS,
    replicas: c.GATE_SITE_REPLICAS,
  });
}

function readable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
