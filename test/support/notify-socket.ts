import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

// A stand-in for systemd's notification socket: a unix datagram socket that records every message.
// Node has none, and socat keeps the descriptor that systemd-notify's barrier passes along (so each
// systemd-notify would wait its 5 s timeout); perl (Essential on Debian) receives without ancillary
// data, which closes that descriptor at once, as systemd does after reading it. Modelled on
// sd_notify(3): one datagram of newline-separated assignments; BARRIER=1 comes with one descriptor
// that the manager closes once every earlier message is processed (systemd-notify(1) waits for that
// unless --no-block). What this stand-in does not model: the manager drops messages from processes
// outside the unit unless NotifyAccess=all (gate.service sets it; test/cli/notify.test.ts checks).

const RECEIVER = `
use Socket;
socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!";
bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!";
$| = 1;
print "listening\\n";
while (defined recv($s, my $m, 65536, 0)) { $m =~ s/\\n/\\\\n/g; print "$m\\n"; }
`;

export interface Notice {
  /** ms since the receiver started */
  at: number;
  /** The message's assignments (BARRIER=1, systemd-notify's own handshake, left out). */
  fields: Record<string, string>;
}

export interface NotifySocket {
  path: string;
  notices: Notice[];
  /** Resolves with the first notice (from index `from`) that matches, or rejects after `ms`. */
  next(match: (n: Notice) => boolean, ms: number, from?: number): Promise<Notice>;
  count(field: string, value?: string): number;
  close(): void;
}

export async function notifySocket(dir: string, children: ChildProcess[]): Promise<NotifySocket> {
  const socketPath = path.join(dir, 'notify.sock');
  const child = spawn('perl', ['-e', RECEIVER, socketPath]);
  children.push(child);
  const started = Date.now();
  const notices: Notice[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the notify receiver exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let end;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line === 'listening') {
          resolve();
          continue;
        }
        const fields = Object.fromEntries(
          line.split('\\n').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
        );
        if (fields.BARRIER === undefined) notices.push({ at: Date.now() - started, fields });
        for (const wake of waiters) wake();
      }
    });
  });
  return {
    path: socketPath,
    notices,
    next(match, ms, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = notices.slice(from).find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no such notice in ${ms} ms; got: ${JSON.stringify(notices.map((n) => n.fields))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    count: (field, value) =>
      notices.filter((n) => n.fields[field] !== undefined && (value === undefined || n.fields[field] === value)).length,
    close: () => child.kill(),
  };
}
