// Each result has its own beep and vibration, so the attendant knows the answer without looking (Web Audio: the box
// serves no audio files).
export type Kind = 'ok' | 'recusado' | 'aparelho';

const TUNES: Record<Kind, { hz: number; ms: number }[]> = {
  ok: [
    { hz: 880, ms: 100 },
    { hz: 1320, ms: 160 },
  ],
  recusado: [
    { hz: 330, ms: 180 },
    { hz: 220, ms: 320 },
  ],
  aparelho: [
    { hz: 880, ms: 100 },
    { hz: 660, ms: 100 },
    { hz: 880, ms: 160 },
  ],
};
const VIBRATION: Record<Kind, number[]> = { ok: [80], recusado: [250, 100, 250], aparelho: [80, 60, 80] };

let audio: AudioContext | null = null;

export function kindOf(resultado: string, noAparelho: boolean): Kind {
  if (resultado !== 'ok') return 'recusado';
  return noAparelho ? 'aparelho' : 'ok';
}

/** Opens the audio at a touch (the shift's start): made during a scan, it held the first result's paint back. */
export function prepareSound(): void {
  try {
    audio ??= new AudioContext();
  } catch {
    // No audio here: the colour and the vibration still tell.
  }
}

/** The result's beep and vibration once its colours are painted: the screen is the answer, and it comes first. */
export function signalAfterPaint(kind: Kind): void {
  requestAnimationFrame(() => setTimeout(() => signal(kind), 0));
}

export function signal(kind: Kind): void {
  try {
    audio ??= new AudioContext();
    let t = audio.currentTime;
    for (const note of TUNES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = kind === 'recusado' ? 'square' : 'sine';
      osc.frequency.value = note.hz;
      gain.gain.value = 0.2;
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + note.ms / 1000);
      t += note.ms / 1000 + 0.03;
    }
  } catch {
    // No audio (not allowed before a touch): the colour and the vibration still tell.
  }
  navigator.vibrate?.(VIBRATION[kind]);
}
