export const OCTET_STREAM = 'application/octet-stream';

/** Raster images a model or a browser can show safely as pictures (SVG is active content, not here). */
const IMAGE_MIMES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const ZIP_MIME = 'application/zip';

const BY_EXTENSION: Record<string, string> = {
  // images
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  // documents and archives
  pdf: 'application/pdf',
  zip: ZIP_MIME,
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  bz2: 'application/x-bzip2',
  xz: 'application/x-xz',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  epub: 'application/epub+zip',
  jar: 'application/java-archive',
  whl: ZIP_MIME,
  // text and markup
  txt: 'text/plain',
  log: 'text/plain',
  text: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  rst: 'text/x-rst',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  xml: 'application/xml',
  // data
  json: 'application/json',
  jsonl: 'application/jsonl',
  ndjson: 'application/x-ndjson',
  geojson: 'application/geo+json',
  ipynb: 'application/x-ipynb+json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  ini: 'text/plain',
  cfg: 'text/plain',
  sql: 'application/sql',
  parquet: 'application/vnd.apache.parquet',
  npy: OCTET_STREAM,
  pkl: OCTET_STREAM,
  // code
  py: 'text/x-python',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  tsx: 'text/x-typescript',
  jsx: 'text/javascript',
  sh: 'application/x-sh',
  bash: 'application/x-sh',
  r: 'text/x-r',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  c: 'text/x-c',
  h: 'text/x-c',
  cpp: 'text/x-c++',
  hpp: 'text/x-c++',
  // media
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** Formats that are ZIP archives inside: ZIP magic keeps these extensions' types. */
const ZIP_BASED = new Set(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'epub', 'jar', 'whl']);

/** Types whose magic bytes we check: the extension alone never vouches for them when content is given. */
const MAGIC_CHECKED = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

function startsWith(head: Buffer, bytes: readonly number[], offset = 0): boolean {
  if (head.length < offset + bytes.length) return false;
  return bytes.every((byte, index) => head[offset + index] === byte);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

function sniff(head: Buffer): string | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(head, ascii('%PDF-'))) return 'application/pdf';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return ZIP_MIME;
  return undefined;
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * The MIME type of a file from its leading bytes (PNG, JPEG, GIF, WEBP, PDF, ZIP) and its
 * extension. When `head` is given, the extension of a magic-checked type (png, jpg, gif, webp,
 * pdf) is only believed if the bytes agree, so isImageMime(detectMime(p, head)) means real image
 * bytes. ZIP-based formats (docx, xlsx, jar…) keep their extension's type. Default application/octet-stream.
 */
export function detectMime(path: string, head?: Buffer): string {
  const extension = extensionOf(path);
  const byExtension = BY_EXTENSION[extension];
  if (head !== undefined) {
    const sniffed = sniff(head);
    if (sniffed === ZIP_MIME) return ZIP_BASED.has(extension) ? (byExtension ?? ZIP_MIME) : ZIP_MIME;
    if (sniffed !== undefined) return sniffed;
    if (byExtension !== undefined && MAGIC_CHECKED.has(byExtension)) return OCTET_STREAM;
  }
  return byExtension ?? OCTET_STREAM;
}

/** True for the raster image types shown as pictures (png, jpeg, gif, webp); parameters are ignored. */
export function isImageMime(mime: string): boolean {
  const bare = mime.split(';')[0]?.trim().toLowerCase() ?? '';
  return IMAGE_MIMES.has(bare);
}
