import qrcode from 'qrcode-generator';

/** The pairing URL as an SVG QR the console shows (error correction M: a phone's camera reads it off a screen). */
export function pairingQrSvg(url: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(url, 'Byte');
  qr.make();
  return qr.createSvgTag({ cellSize: 6, margin: 4, scalable: true });
}
