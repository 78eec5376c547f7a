import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.js';

// Registered before each test file's own hooks, so it runs after them (after-hooks run in reverse).
afterAll(removeTempDirs);
