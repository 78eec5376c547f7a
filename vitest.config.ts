import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Upper bounds, not targets: on a loaded 2-core machine the sync's bulk threads (nice 19, so the
    // gate comes first) run 10-20x slower than on a quiet one; a test that passes ends at once.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Stops at once, in one line, when a program the tests need is missing (socat, gcc, make, chromium).
    globalSetup: ['test/support/requirements.ts'],
    // Every temp directory a test file made is removed after its last test.
    setupFiles: ['test/support/cleanup.ts'],
  },
});
