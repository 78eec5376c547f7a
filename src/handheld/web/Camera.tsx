import { useEffect, useRef, useState } from 'preact/hooks';

// Phones without an imager read with the camera: the browser's BarcodeDetector when it knows QR codes, otherwise
// the zxing-wasm reader (served by the box, precached) in a Worker, so decoding never blocks the page.

interface Detector {
  detect(source: CanvasImageSource): Promise<{ rawValue: string }[]>;
}
interface DetectorClass {
  new (opts: { formats: string[] }): Detector;
  getSupportedFormats(): Promise<string[]>;
}

async function nativeDetector(): Promise<Detector | null> {
  const Native = (globalThis as unknown as { BarcodeDetector?: DetectorClass }).BarcodeDetector;
  if (!Native) return null;
  const formats = await Native.getSupportedFormats().catch(() => [] as string[]);
  return formats.includes('qr_code') ? new Native({ formats: ['qr_code'] }) : null;
}

/** The wasm reader in a Worker (decoder.js, built beside app.js): one frame at a time. */
function workerDetector(canvas: HTMLCanvasElement): Detector {
  const worker = new Worker(new URL('decoder.js', document.baseURI), { type: 'module' });
  let pending: ((codes: string[]) => void) | null = null;
  worker.onmessage = (e: MessageEvent<string[]>) => pending?.(e.data);
  return {
    detect(source) {
      const video = source as HTMLVideoElement;
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
      ctx.drawImage(video, 0, 0);
      const frame = ctx.getImageData(0, 0, canvas.width, canvas.height);
      return new Promise((resolve) => {
        pending = (codes) => resolve(codes.map((rawValue) => ({ rawValue })));
        worker.postMessage(frame, [frame.data.buffer]);
      });
    },
  };
}

export function Camera({ onCode, onClose }: { onCode: (code: string) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [erro, setErro] = useState<string | null>(null);
  useEffect(() => {
    let stream: MediaStream | null = null;
    let live = true;
    void (async () => {
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
        const v = video.current!;
        v.srcObject = stream;
        await v.play();
        const detector = (await nativeDetector()) ?? workerDetector(document.createElement('canvas'));
        while (live) {
          if (v.videoWidth > 0) {
            const found = await detector.detect(v).catch(() => []);
            if (found[0]?.rawValue) onCode(found[0].rawValue);
          }
          await new Promise((r) => setTimeout(r, 150));
        }
      } catch (e) {
        setErro(`Câmera indisponível: ${e instanceof Error ? e.message : String(e)}`);
      }
    })();
    return () => {
      live = false;
      for (const t of stream?.getTracks() ?? []) t.stop();
    };
  }, [onCode]);
  return (
    <div class="camera">
      {erro ? <p class="alert">{erro}</p> : <video ref={video} muted playsInline aria-label="Câmera" />}
      <button class="secondary" onClick={onClose}>
        Fechar câmera
      </button>
    </div>
  );
}
