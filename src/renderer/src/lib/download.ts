import { base64ToBytes, bytesToBase64 } from './bytes';

/** Saves content as a file through the browser's (or Electron's) download. */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function downloadBase64(fileName: string, mime: string, base64: string): void {
  downloadBlob(fileName, new Blob([base64ToBytes(base64)], { type: mime }));
}

export function downloadText(fileName: string, mime: string, text: string): void {
  downloadBlob(fileName, new Blob([text], { type: mime }));
}

/** The last part of a path: "out/plot.png" → "plot.png". */
export function baseName(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** Reads a file the person picked as base64 (for files.write). */
export async function readFileBase64(file: File): Promise<string> {
  return bytesToBase64(new Uint8Array(await file.arrayBuffer()));
}
