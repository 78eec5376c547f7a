// The check-in rules as their other parts import them: the pure decision rules (rules/, which a
// browser bundle can carry), and the batch answer's summary sentence.
export * from './rules/index.js';

export const batchMessage = (ok: number, failed: number, verb: string) =>
  `${ok + failed} código(s) processado(s): ${ok} ${verb} com sucesso, ${failed} com falha.`;
