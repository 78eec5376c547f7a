// The pairing code: from the URL's fragment (#parear=…) the console's QR opens, or that whole URL or the bare code
// pasted or scanned into the pairing screen.
export function tokenFrom(text: string): string | null {
  const m = /(?:^|[#&])parear=([^&\s]+)/.exec(text);
  const token = m ? decodeURIComponent(m[1]!) : text.trim();
  return token.length >= 16 ? token : null;
}
