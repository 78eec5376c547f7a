import type { UploadItem, UploadItemAnswer } from '../handheld.schemas.js';

// The queue's pure parts: how it is cut into uploads and what each per-item answer does to it. A queued movement
// leaves the queue only on the box's answer for its id (aplicado or ja_recebido); a recusado one is kept aside.

export const UPLOAD_BATCH = 500;

/** The oldest first, at most `size` per upload. */
export function batches<T extends { decidido_em: string }>(items: T[], size = UPLOAD_BATCH): T[][] {
  const sorted = [...items].sort((a, b) =>
    a.decidido_em < b.decidido_em ? -1 : a.decidido_em > b.decidido_em ? 1 : 0,
  );
  const out: T[][] = [];
  for (let i = 0; i < sorted.length; i += size) out.push(sorted.slice(i, i + size));
  return out;
}

export interface Settled {
  /** Ids to delete from the queue. */
  done: string[];
  /** Items the box refused: moved aside with its error, never sent again. */
  refused: { item: UploadItem; erro: string }[];
  /** Items with no answer of their own: they stay queued for the next upload. */
  kept: UploadItem[];
}

export function settle(sent: UploadItem[], answers: UploadItemAnswer[]): Settled {
  const byId = new Map(answers.filter((a) => a.id !== null).map((a) => [a.id!, a]));
  const out: Settled = { done: [], refused: [], kept: [] };
  for (const item of sent) {
    const answer = byId.get(item.id);
    if (!answer) out.kept.push(item);
    else if (answer.estado === 'recusado')
      out.refused.push({ item, erro: answer.erro ? `${answer.erro.code}: ${answer.erro.message}` : 'recusado' });
    else out.done.push(item.id);
  }
  return out;
}
