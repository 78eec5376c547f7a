import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Stops at once, in one line, when a program the tests need is missing (socat, gcc, make, chromium).
    globalSetup: ['test/support/requirements.ts'],
    // Every temp directory a test file made is removed after its last test.
    setupFiles: ['test/support/cleanup.ts'],
  },
});
