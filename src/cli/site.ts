import fs from 'node:fs';
import path from 'node:path';
import { boxListProblems, hubFiles, natsUser } from '../site/hub-config.js';
import { EXIT, parse, printHelp, say, UsageError, type CliIo } from './common.js';

/**
 * `gate site hub-config --boxes a,b,c --out DIR [--tls-cert F --tls-key F]`: the site hub's nats-server configuration
 * (with TLS, the hub's certificate signed by the site's CA) and one password file per box, written with modes that
 * keep them secret; never printed, so no terminal log keeps a password (docs/site.md).
 */
export async function siteCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'hub-config') throw new UsageError(`subcomando desconhecido: gate site ${sub ?? ''}`.trim());
  const { values, help } = parse(
    rest,
    {
      boxes: { type: 'string' },
      out: { type: 'string' },
      listen: { type: 'string' },
      'store-dir': { type: 'string' },
      'monitor-port': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      force: { type: 'boolean' },
    },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'site hub-config');
  if (values.out === undefined) throw new UsageError('informe --out DIR (onde gravar a configuração e as senhas)');
  const boxes = (values.boxes ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  const problems = boxListProblems(boxes);
  const monitorPort = Number(values['monitor-port'] ?? 8222);
  if (!Number.isInteger(monitorPort) || monitorPort < 1 || monitorPort > 65535)
    problems.push(`--monitor-port inválida: ${values['monitor-port']}`);
  const tls = tlsOption(values['tls-cert'], values['tls-key'], problems);
  if (problems.length > 0) throw new UsageError(problems.join('; '));

  const out = path.resolve(values.out);
  const configFile = path.join(out, 'nats-server.conf');
  if (fs.existsSync(configFile) && !values.force) {
    say(io.stderr, `gate site hub-config: ${configFile} já existe; novas senhas trocariam as das caixas (use --force)`);
    return EXIT.failure;
  }
  const files = hubFiles({
    boxes,
    listen: values.listen ?? '0.0.0.0:4222',
    storeDir: values['store-dir'] ?? '/var/lib/nats/jetstream',
    monitorPort,
    tls,
  });
  fs.mkdirSync(path.join(out, 'senhas'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(configFile, files.config, { mode: 0o600 });
  fs.chmodSync(configFile, 0o600);
  for (const [box, password] of files.passwords) {
    const file = path.join(out, 'senhas', box);
    fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
  }
  say(io.stdout, configFile);
  for (const box of boxes) say(io.stdout, `${path.join(out, 'senhas', box)}  (usuário ${natsUser(box)})`);
  say(
    io.stderr,
    'copie cada arquivo de senha para a sua caixa (GATE_SITE_NATS_PASSWORD_FILE), e a configuração para o hub',
  );
  if (tls) say(io.stderr, 'TLS: cada caixa precisa da CA do site (GATE_SITE_NATS_CA); a chave da CA fica fora do hub');
  return EXIT.ok;
}

/** The hub's certificate and key (paths on the hub, where nats-server reads them): both or neither. */
function tlsOption(certFile: string | undefined, keyFile: string | undefined, problems: string[]) {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    problems.push('informe --tls-cert e --tls-key juntos (o certificado do hub e a sua chave), ou nenhum dos dois');
    return undefined;
  }
  for (const [option, file] of [
    ['--tls-cert', certFile],
    ['--tls-key', keyFile],
  ] as const)
    if (!path.isAbsolute(file)) problems.push(`${option} deve ser um caminho absoluto no hub: ${file}`);
  return { certFile, keyFile };
}
