import { z } from 'zod';
import type { Combo, ComboAvailability } from '../combos/combo.schemas.js';
import type { Db } from '../db/open.js';
import { describeIssues } from '../lib/zod-issues.js';
import type { Pedido } from '../orders/order.schemas.js';
import { CrossChecks } from './checks.js';
import { clientId, handlers } from './kinds.js';
import { KINDS, openRecordStream, type Kind } from './records.js';
import type { Progress } from './progress.js';
import { emptyCounts, tally, type WriteCounts } from './write.js';

// Messages of the schemas' built-in rules in Portuguese, as the HTTP app does.
z.config(z.locales.pt());

/** The first `cap` problems, word for word, and how many there were in all. */
export class IssueList {
  readonly lines: string[] = [];
  count = 0;
  constructor(private readonly cap = 20) {}
  add = (line: string): void => {
    this.count++;
    if (this.lines.length < this.cap) this.lines.push(line);
  };
}

export interface ValidationResult {
  issues: IssueList;
  /** Records per list. */
  counts: Record<Kind, number>;
  /** The lists in the order the file has them: decides how the writing pass reads it. */
  keyOrder: Kind[];
  /** With `predict`: what the writing pass would report for the records that passed their schema. */
  predicted: WriteCounts;
}

export interface ValidationContext {
  db: Db;
  tenantId: number;
  /** Also work out what each record would do to the database (`gate import --dry-run`). */
  predict?: boolean;
}

/**
 * Pass 1: reads the whole file, checks every record against its schema and the rules that span
 * records, and writes nothing. Syntax errors reject (see locateSyntaxError).
 */
export async function validateFile(
  file: string,
  ctx: ValidationContext,
  progress: Progress,
): Promise<ValidationResult> {
  const issues = new IssueList();
  const checks = new CrossChecks(ctx.db, ctx.tenantId, issues.add);
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  const keyOrder: Kind[] = [];
  const predicted = emptyCounts();
  const stream = openRecordStream(file);
  let records = 0;
  for await (const item of stream.items) {
    if (item.type === 'issue') {
      issues.add(item.message);
      continue;
    }
    if (item.type === 'key') {
      if (keyOrder.includes(item.kind)) issues.add(`${item.kind}: chave repetida no arquivo`);
      else keyOrder.push(item.kind);
      continue;
    }
    records++;
    counts[item.kind]++;
    const parsed = handlers[item.kind].parse(item.value);
    if (!parsed.success) {
      for (const line of describeIssues(parsed.error, [item.kind, item.index])) issues.add(line);
    } else {
      crossCheck(checks, item.kind, parsed.data, item.index);
      if (ctx.predict) tally(predicted, item.kind, handlers[item.kind].predict(ctx.db, ctx.tenantId, parsed.data));
    }
    progress.update(stream.bytesRead, records);
  }
  checks.finish();
  progress.finish(stream.bytesRead, records);
  return { issues, counts, keyOrder, predicted };
}

function crossCheck(checks: CrossChecks, kind: Kind, data: unknown, index: number): void {
  switch (kind) {
    case 'pedidos':
      return checks.pedido(data as Pedido, index);
    case 'combos':
      return checks.combo(data as Combo, index);
    case 'disponibilidade':
      return checks.disponibilidade(data as ComboAvailability, index);
    case 'clientes':
      return checks.cliente(clientId(data), index);
  }
}
