/** base64 ↔ bytes without Node's Buffer (the panel runs in a browser). */
export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** A data: URL for content already in base64. */
export function dataUrl(mime: string, base64: string): string {
  return `data:${mime};base64,${base64}`;
}

/** Decodes base64 UTF-8 text (e.g. an SVG or HTML artifact). */
export function base64ToText(base64: string): string {
  return new TextDecoder().decode(base64ToBytes(base64));
}

/** A fresh execution id the contract accepts: run-<16 lowercase letters and digits>. */
export function newExecutionId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const random = crypto.getRandomValues(new Uint8Array(16));
  return `run-${Array.from(random, (b) => alphabet[b % alphabet.length]).join('')}`;
}
