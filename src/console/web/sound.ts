import type { Leitura } from '../console.answers';

// Each result kind has its own tune, so the attendant knows the answer without looking. Made with
// Web Audio: the box serves no audio files.

export type SoundKind = 'liberado' | 'ja_utilizado' | 'fora_da_data' | 'cancelado' | 'nao_encontrado' | 'outro';

type Note = { hz: number; ms: number; wave: OscillatorType };

const TUNES: Record<SoundKind, Note[]> = {
  liberado: [
    { hz: 880, ms: 110, wave: 'sine' },
    { hz: 1320, ms: 170, wave: 'sine' },
  ],
  ja_utilizado: [
    { hz: 440, ms: 90, wave: 'square' },
    { hz: 440, ms: 90, wave: 'square' },
    { hz: 440, ms: 90, wave: 'square' },
  ],
  fora_da_data: [
    { hz: 660, ms: 160, wave: 'triangle' },
    { hz: 330, ms: 260, wave: 'triangle' },
  ],
  cancelado: [{ hz: 196, ms: 520, wave: 'sawtooth' }],
  nao_encontrado: [
    { hz: 520, ms: 140, wave: 'square' },
    { hz: 390, ms: 140, wave: 'square' },
  ],
  outro: [{ hz: 300, ms: 300, wave: 'square' }],
};

const KIND_OF_CODE: Record<string, SoundKind> = {
  TICKET_ALREADY_USED: 'ja_utilizado',
  TICKET_EXPIRED: 'fora_da_data',
  TICKET_NOT_VALID_YET: 'fora_da_data',
  TICKET_CANCELLED: 'cancelado',
  ORDER_NOT_PAID: 'cancelado',
  TICKET_NOT_FOUND: 'nao_encontrado',
  ORDER_NOT_FOUND: 'nao_encontrado',
  COMBO_NOT_FOUND: 'nao_encontrado',
};

export function soundKind(l: Pick<Leitura, 'resultado' | 'erro'>): SoundKind {
  if (l.resultado === 'liberado') return 'liberado';
  return (l.erro && KIND_OF_CODE[l.erro.code]) || 'outro';
}

let ctx: AudioContext | null = null;

export function play(kind: SoundKind): void {
  try {
    ctx ??= new AudioContext();
    if (ctx.state === 'suspended') void ctx.resume();
    let at = ctx.currentTime + 0.01;
    for (const note of TUNES[kind]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = note.wave;
      osc.frequency.value = note.hz;
      const end = at + note.ms / 1000;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.4, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, end);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(end);
      at = end + 0.04;
    }
  } catch {
    // No audio device: the screen still shows the result.
  }
}
