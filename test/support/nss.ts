import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp.js';

// Chromium on Linux trusts the CAs of the NSS database in $HOME/.pki/nssdb: where `certutil` puts the site CA (the
// Linux counterpart of Android's "Install a certificate"). Never --ignore-certificate-errors.

const NSS = (home: string) => `sql:${path.join(home, '.pki', 'nssdb')}`;

/** A HOME whose NSS database trusts `caPem` for TLS servers, or trusts nothing when caPem is undefined. */
export function homeWithNss(caPem?: string): string {
  const home = tempDir('gate-nss-');
  fs.mkdirSync(path.join(home, '.pki', 'nssdb'), { recursive: true });
  execFileSync('certutil', ['-d', NSS(home), '-N', '--empty-password'], { stdio: 'pipe' });
  if (caPem)
    execFileSync('certutil', ['-d', NSS(home), '-A', '-t', 'C,,', '-n', 'site-ca', '-i', caPem], { stdio: 'pipe' });
  return home;
}
