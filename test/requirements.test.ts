import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

it('npm test stops at once, with one line naming what is missing and how to install it', () => {
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/clock.test.ts'], {
    env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium', NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status).toBe(1);
  const lines = `${run.stdout}${run.stderr}`.split('\n').filter((l) => l.includes('chromium'));
  expect(lines).toEqual([
    'npm test precisa de chromium: sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium',
  ]);
  expect(run.stdout).not.toMatch(/✓|passed/);
});
