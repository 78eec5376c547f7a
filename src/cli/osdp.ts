import fs from 'node:fs';
import { createOsdpBus } from '../gate/relays/osdp/osdp-bus.js';
import { SCBK_DEFAULT, parseScbk } from '../gate/relays/osdp/osdp-secure.js';
import type { Log } from '../lib/log.js';
import { openSerialLink } from '../gate/serial/serial-link.js';
import { EXIT, parse, printHelp, say, UsageError, type CliIo } from './common.js';

// `gate osdp set-key`: gives one OSDP reader its secure-channel key (SCBK) from a file, with the
// box stopped (the port is the box's while it runs). The reader must still have SCBK-D (install
// mode), or the key given by --current-key-file. Done when a session on the new key works.

export async function osdpCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'set-key')
    throw new UsageError(sub === undefined ? 'falta o subcomando: set-key' : `subcomando desconhecido: osdp ${sub}`);
  const { values, help } = parse(
    rest,
    {
      port: { type: 'string' },
      address: { type: 'string' },
      baud: { type: 'string' },
      'key-file': { type: 'string' },
      'current-key-file': { type: 'string' },
      timeout: { type: 'string' },
    },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'osdp set-key');
  if (!values.port) throw new UsageError('informe --port (o caminho da porta serial do barramento RS-485)');
  const address = integer(values.address, '--address', 0, 126);
  const baudRate = values.baud === undefined ? 9600 : integer(values.baud, '--baud', 1200, 230400);
  const timeoutMs = (values.timeout === undefined ? 15 : integer(values.timeout, '--timeout', 1, 300)) * 1000;
  if (!values['key-file'])
    throw new UsageError('informe --key-file (arquivo com a nova chave: 32 dígitos hexadecimais)');
  const scbk = readKey(values['key-file'], '--key-file');
  const current = values['current-key-file'] ? readKey(values['current-key-file'], '--current-key-file') : SCBK_DEFAULT;

  // What happens is reported from the PD's state; the port's own messages stay quiet.
  const quiet = () => {};
  const log: Log = { debug: quiet, info: quiet, warn: quiet, error: quiet };
  const link = openSerialLink({ path: values.port, baudRate, log, probe: false });
  const bus = createOsdpBus({ link, log });
  const pd = bus.attach(address, {}, { scbk, fallback: [current] });
  try {
    const outcome = await new Promise<'ok' | 'timeout' | string>((resolve) => {
      const started = Date.now();
      const check = setInterval(() => {
        const s = pd.state();
        const done =
          s.phase === 'online'
            ? 'ok'
            : s.phase === 'offline' && s.problem
              ? s.problem
              : Date.now() - started > timeoutMs
                ? 'timeout'
                : null;
        if (!done) return;
        clearInterval(check);
        resolve(done);
      }, 20);
    });
    if (outcome === 'ok') {
      say(
        io.stdout,
        pd.state().keyWritten
          ? `chave gravada no leitor OSDP ${address} em ${values.port} e verificada (sessão segura com a nova chave)`
          : `o leitor OSDP ${address} em ${values.port} já usa esta chave (sessão segura verificada); nada foi gravado`,
      );
      return EXIT.ok;
    }
    say(
      io.stderr,
      outcome === 'timeout'
        ? `gate osdp set-key: o leitor OSDP ${address} não respondeu em ${timeoutMs / 1000} s em ${values.port} (${link.status().lastError ?? pd.state().problem ?? 'sem resposta'})`
        : `gate osdp set-key: ${outcome}`,
    );
    return EXIT.failure;
  } finally {
    await bus.close();
  }
}

function integer(text: string | undefined, name: string, min: number, max: number): number {
  if (text === undefined) throw new UsageError(`informe ${name}`);
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${name} deve ser um número de ${min} a ${max}`);
  return n;
}

/** The key from its file; messages name the file, never its content. */
function readKey(file: string, option: string): Uint8Array {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${option}: não foi possível ler ${file}: ${(err as NodeJS.ErrnoException).code ?? 'erro'}`);
  }
  const key = parseScbk(text);
  if (!key) throw new UsageError(`${option}: ${file} não contém uma chave de 32 dígitos hexadecimais`);
  return key;
}
