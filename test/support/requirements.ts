import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

// vitest's global setup: the suite needs a few programs a fresh machine lacks (README, "Quick
// start"). Without one of them, stop at once with one line that names what is missing and how to
// install it, instead of a cascade of failures far from the cause.

const found = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** The Debian packages of a program whose package has another name. */
const PACKAGES: Record<string, string[]> = {
  gcc: ['gcc', 'libc6-dev'],
  'systemd-notify': ['systemd'],
  promtool: ['prometheus'],
  certutil: ['libnss3-tools'],
};

export default function checkRequirements(): void {
  const missing = [
    ...['socat', 'cc', 'make', 'openssl', 'systemd-notify', 'promtool', 'nats-server', 'certutil', 'strace']
      .filter((c) => !found(c))
      .map((c) => (c === 'cc' ? 'gcc' : c)),
    ...(fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') ? [] : ['chromium']),
  ];
  if (missing.length === 0) return;
  const packages = [...new Set(missing.flatMap((m) => PACKAGES[m] ?? [m]))].join(' ');
  process.stderr.write(
    `npm test precisa de ${missing.join(', ')}: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages}\n`,
  );
  process.exit(1);
}
