import { randomBytes } from 'node:crypto';
import { BOX_NAME, natsUser } from '../site-config.js';

export { BOX_NAME, natsUser };

// The site hub's nats-server configuration (docs/site.md): one account for the park with JetStream, one user
// per box with its own password, and nothing else a LAN peer could use — no anonymous user (never
// `no_auth_user`), no route, leaf node or gateway listener, monitoring on the hub's loopback only. Read by Debian's
// nats-server 2.9.10, whose configuration format this follows (nats-server's docs, "Configuration File").

export interface HubOptions {
  boxes: string[];
  /** Where the boxes connect: host:port (nats-server's `listen`). */
  listen: string;
  /** JetStream's files on the hub. */
  storeDir: string;
  /** nats-server's monitoring port, served on 127.0.0.1 only. */
  monitorPort: number;
  /** The hub's certificate (signed by the site's CA) and its key, on the hub: with them, clients need TLS. */
  tls?: { certFile: string; keyFile: string };
}

/**
 * The TLS handshake's limit, in seconds: written out, though nats-server 2.9.10 reports 2 s by default in /varz,
 * because older versions and their docs use 0.5 s, short for a loaded Raspberry Pi on Wi-Fi (a box whose handshake
 * misses it is dropped, goes local, and retries every second).
 */
export const TLS_TIMEOUT_S = 2;

export interface HubFiles {
  /** The nats-server configuration: it holds every box's password, so only nats-server may read it. */
  config: string;
  /** Each box's password, by box name: the file GATE_SITE_NATS_PASSWORD_FILE names on that box. */
  passwords: Map<string, string>;
}

/** Problems with a list of box names, each worded for the IT lead; empty when the list is good. */
export function boxListProblems(boxes: string[]): string[] {
  const problems = boxes
    .filter((b) => !BOX_NAME.test(b))
    .map((b) => `nome de caixa inválido: "${b}" (letras minúsculas, dígitos e hífens, até 32)`);
  const repeated = [...new Set(boxes.filter((b, i) => boxes.indexOf(b) !== i))];
  for (const b of repeated) problems.push(`caixa repetida: ${b}`);
  if (boxes.length === 0) problems.push('informe as caixas do site (--boxes norte,sul)');
  return problems;
}

const quoted = (s: string) => JSON.stringify(s);

/** The hub's configuration and a new random password for each box. */
export function hubFiles(options: HubOptions, random: (bytes: number) => Buffer = randomBytes): HubFiles {
  const passwords = new Map(options.boxes.map((box) => [box, random(24).toString('base64url')]));
  const users = options.boxes.map(
    (box) => `      { user: ${quoted(natsUser(box))}, password: ${quoted(passwords.get(box)!)} }`,
  );
  const config = [
    "# The park's site hub (nats-server), made by `gate site hub-config` (docs/site.md).",
    `# Boxes: ${options.boxes.join(', ')}. It holds their passwords: readable by the nats-server user only.`,
    'server_name: "gate-hub"',
    `listen: ${quoted(options.listen)}`,
    '# Monitoring on this machine only.',
    `http: ${quoted(`127.0.0.1:${options.monitorPort}`)}`,
    ...tlsBlock(options.tls),
    'jetstream {',
    `  store_dir: ${quoted(options.storeDir)}`,
    '}',
    'accounts {',
    '  GATE {',
    '    jetstream: enabled',
    '    users: [',
    ...users,
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
  return { config, passwords };
}

/** With it, nats-server takes TLS clients only: a plain connection is refused. */
function tlsBlock(tls: HubOptions['tls']): string[] {
  if (!tls) return [];
  return [
    '# TLS with the site\'s CA (docs/site.md, "TLS on the site"): the boxes check this certificate against it.',
    'tls {',
    `  cert_file: ${quoted(tls.certFile)}`,
    `  key_file: ${quoted(tls.keyFile)}`,
    `  timeout: ${TLS_TIMEOUT_S}`,
    '}',
  ];
}
