import fs from 'node:fs';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

// A fresh `npm ci` on the box must print nothing an IT lead has to wonder about (issue 22, 6.11): no
// package whose engines exclude the Node.js the README promises (EBADENGINE), and no install script npm 11
// lists as not approved by package.json's allowScripts.

const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, range: string): boolean };
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string }; hasInstallScript?: boolean }>;
};
const installed = Object.entries(lock.packages).filter(([where]) => where !== '');
const nameOf = (where: string) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);

it('every package in the lock runs on the oldest Node.js the README and engines promise', () => {
  const oldest = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)![1]! + '.0';
  expect(fs.readFileSync('README.md', 'utf8')).toContain(`Node.js ${pkg.engines.node.slice(2)}`);
  const excluded = installed
    .filter(([, p]) => p.engines?.node !== undefined && !semver.satisfies(oldest, p.engines.node))
    .map(([where, p]) => `${nameOf(where)}@${p.version} (node ${p.engines!.node})`);
  expect(excluded).toEqual([]);
});

// By name: the lock has no `resolved` URLs, and npm matches a pinned entry (name@version) only against one.
it('package.json approves exactly the packages with install scripts in the lock', () => {
  const withScripts = [
    ...new Set(installed.filter(([, p]) => p.hasInstallScript === true).map(([where]) => nameOf(where))),
  ].sort();
  expect(withScripts.length).toBeGreaterThan(0);
  expect(Object.keys(pkg.allowScripts).sort()).toEqual(withScripts);
  expect(Object.values(pkg.allowScripts).every((v) => v === true)).toBe(true);
});
