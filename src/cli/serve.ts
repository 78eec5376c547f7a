import { LaneConfigError } from '../gate/lanes/lanes-file.js';
import { main } from '../main.js';
import { BOX_NODE_FLAGS, heapLimitMissing } from '../node-flags.js';
import { configOf, EXIT, parse, printHelp, say, type CliIo } from './common.js';

/** Under the unit's TimeoutStopSec= (test/cli/notify.test.ts checks). */
export const CLOSE_TIMEOUT_MS = 10_000;

/** Runs the box until SIGINT or SIGTERM, then closes it: in-flight requests finish, the db closes. */
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const { help } = parse(args, {}, { min: 0, max: 0, names: '' });
  if (help) return printHelp(io, 'serve');
  const config = configOf(io);
  if (heapLimitMissing(process.execArgv, io.env.NODE_OPTIONS))
    say(
      io.stderr,
      `gate serve: node sem limite de heap; use npm start ou NODE_OPTIONS=${BOX_NODE_FLAGS.join(' ')} (a unit do systemd já usa), ou a memória do dia passa de 250 MB`,
    );
  let box;
  try {
    box = await main(config);
  } catch (error) {
    // A failed start has closed everything it opened: the process ends by itself.
    say(io.stderr, `gate serve: não foi possível iniciar: ${error instanceof Error ? error.message : String(error)}`);
    // A bad lanes file is a usage error, like a bad variable (docs/lanes.md).
    return error instanceof LaneConfigError ? EXIT.usage : EXIT.failure;
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  // A second signal means "now": do not wait for the graceful close.
  const force = () => process.exit(EXIT.failure);
  process.once('SIGINT', force);
  process.once('SIGTERM', force);

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), CLOSE_TIMEOUT_MS);
    timer.unref();
  });
  const closed = box.close(signal).then(() => false);
  const late = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  if (late) {
    say(
      io.stderr,
      `gate serve: ${signal} recebido, mas o encerramento passou de ${CLOSE_TIMEOUT_MS / 1000} s; saindo assim mesmo`,
    );
    // A client holding a connection open would otherwise keep the process alive until it lets go.
    process.exit(EXIT.failure);
  }
  return EXIT.ok;
}
