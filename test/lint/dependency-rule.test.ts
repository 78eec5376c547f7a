import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The lint step's dependency rule (eslint.config.js): shared code imports no feature folder, so
// imports flow one way (docs/architecture.md, "Layers"). Checked here on the real config.
const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, '../..') });

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.resolve(import.meta.dirname, '../..', file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('shared code does not import feature folders', () => {
  it.each([
    ['src/lib/example.ts', "import { createCheckinService } from '../checkin/checkin.service.js';"],
    ['src/lib/example.ts', "import { createBox } from '../box.js';"],
    ['src/lib/example.ts', "import { createBoxStatus } from '../status/box-status.js';"],
    ['src/lib/example.ts', "import { createOperator } from '../operators/operators.repo.js';"],
    ['src/db/example.ts', "import type { BoxStatus } from '../status/box-status.js';"],
    ['src/http/example.ts', "import { createCheckinService } from '../checkin/checkin.service.js';"],
    ['src/http/example.ts', "import type { SyncInfo } from '../sync/worker.js';"],
    ['src/http/example.ts', "import { healthRoutes } from '../status/health.routes.js';"],
    ['src/http/example.ts', "import { createBox } from '../box.js';"],
    ['src/http/example.ts', "import type { App } from '../app.js';"],
    ['src/operators/example.ts', "import { consoleGuard } from '../console/sessions.js';"],
    ['src/db/example.ts', "import type { GatesInfo } from '../gate/gates.js';"],
    ['src/clock.ts', "import { syncSummary } from './sync/sync.repo.js';"],
    ['migrations/0099_example.ts', "import { ensureTenant } from '../src/tenants/tenants.repo.js';"],
  ])('%s: %s is refused', async (file, code) => {
    expect(await restricted(file, `${code}\nexport {};\n`)).toEqual([
      expect.stringMatching(/must not import a feature folder/),
    ]);
  });

  it("a feature does not import another feature's routes", async () => {
    expect(
      await restricted('src/console/example.ts', "import { gatesRoutes } from '../gate/gates.routes.js';"),
    ).toEqual([expect.stringMatching(/routes are its door/)]);
    expect(
      await restricted('src/console/example.ts', "import { lanePayload } from '../gate/gates.payload.js';"),
    ).toEqual([]);
  });

  it.each([
    ['src/lib/example.ts', "import { crc16 } from './crc.js';"],
    ['src/db/example.ts', "import type { Log } from '../lib/log.js';"],
    ['src/db/example.ts', "import { systemClock } from '../clock.js';"],
    ['src/checkin/example.ts', "import { createGates } from '../gate/gates.js';"],
    ['src/http/example.ts', "import { AppError } from './errors.js';"],
    ['src/http/example.ts', "import type { Log } from '../lib/log.js';"],
    ['src/http/example.ts', "import { systemClock } from '../clock.js';"],
    ['src/status/example.ts', "import { AppError } from '../http/errors.js';"],
    ['src/console/example.ts', "import { toCsv } from '../lib/csv.js';"],
    ['src/operators/example.ts', "import type { Db } from '../db/open.js';"],
    ['src/console/example.ts', "import { createOperator } from '../operators/operators.repo.js';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await restricted(file, `${code}\nexport {};\n`)).toEqual([]);
  });
});
