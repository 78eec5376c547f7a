import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Temporary directories of a test file, all removed after its last test (test/support/cleanup.ts),
// also those a failing test did not get to remove itself.

const made = new Set<string>();

export function tempDir(prefix = 'gate-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

export function removeTempDirs(): void {
  // A killed browser's last processes may still write into its profile for a moment (ENOTEMPTY): retried.
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  made.clear();
}
