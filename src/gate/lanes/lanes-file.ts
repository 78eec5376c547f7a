import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../../config.js';
import { describeIssues } from '../../lib/zod-issues.js';
import { lanePorts, pathConflicts, readKeyFiles, unstablePaths } from './lane-config-checks.js';
import { laneConfigSchema, type LaneConfigFile } from './lane-config.js';

// Reading the lanes file named by GATE_CONFIG: its format, its schema and the checks beyond it,
// every problem named in one message.

/** A ConfigError: `gate serve` prints it and exits with the usage code, like a bad variable. */
export class LaneConfigError extends ConfigError {}

export interface LoadedLaneConfig {
  config: LaneConfigFile;
  /** Not fatal, but worth a line in the log at startup (e.g. unstable serial paths). */
  warnings: string[];
}

const ptErrors = z.locales.ptBR().localeError;

export function loadLaneConfig(file: string): LoadedLaneConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new LaneConfigError(
      `Configuração das pistas (${file}): não foi possível ler o arquivo: ${(err as Error).message}`,
    );
  }
  return parseLaneConfig(text, file);
}

/** `name` is the file name: it chooses the format by extension and appears in every message. */
export function parseLaneConfig(text: string, name: string): LoadedLaneConfig {
  const fail = (lines: string[]) =>
    new LaneConfigError(`Configuração das pistas inválida (${name}):\n${lines.map((l) => `  ${l}`).join('\n')}`);
  let raw: unknown;
  try {
    raw = isJson(text, name) ? JSON.parse(text) : YAML.parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    throw fail([`não é um ${isJson(text, name) ? 'JSON' : 'YAML'} válido: ${(err as Error).message}`]);
  }
  const parsed = laneConfigSchema.safeParse(raw, { error: ptErrors });
  // Every problem in one go: names and ports are checked on the file as written, even with a bad value.
  const conflicts = pathConflicts(lanePorts(raw));
  if (!parsed.success) throw fail([...describeIssues(parsed.error), ...conflicts]);
  const warnings = unstablePaths(parsed.data, name);
  const errors = [...conflicts, ...readKeyFiles(parsed.data, name, warnings)];
  if (errors.length > 0) throw fail(errors);
  return { config: parsed.data, warnings };
}

function isJson(text: string, name: string): boolean {
  const ext = path.extname(name).toLowerCase();
  if (ext === '.json') return true;
  if (ext === '.yaml' || ext === '.yml') return false;
  return /^\s*[{[]/.test(text);
}
