import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

// The camera's QR decoder off the page's thread. The wasm comes from the box (dist/handheld, precached by the service
// worker), never from the package's default CDN: build.mjs names it and passes its URL in WASM_URL.
declare const WASM_URL: string;

prepareZXingModule({
  overrides: { locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? WASM_URL : prefix + path) },
});

self.onmessage = async (e: MessageEvent<ImageData>) => {
  const results = await readBarcodes(e.data, { formats: ['QRCode'], tryHarder: true, maxNumberOfSymbols: 1 }).catch(
    () => [],
  );
  self.postMessage(results.filter((r) => r.isValid).map((r) => r.text));
};
