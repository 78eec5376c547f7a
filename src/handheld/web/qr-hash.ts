// The day data names a code by qrHash (src/handheld/qr-hash.ts): the first 22 characters of the base64url SHA-256 of
// "gate-qr\n" + the code. The same here with WebCrypto, pinned by the same vectors (test/handheld/web-qr-hash.test.ts).
const PREFIX = 'gate-qr\n';
const LENGTH = 22;

export async function qrHash(code: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(PREFIX + code)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '').slice(0, LENGTH);
}
