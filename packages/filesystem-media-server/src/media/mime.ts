import path from 'node:path';

/** The official server's extension map, exactly: anything else is application/octet-stream. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.flac': 'audio/flac',
};

export const FALLBACK_MEDIA_TYPE = 'application/octet-stream';

export function mediaTypeOf(filePath: string): string {
  return MEDIA_TYPES[path.extname(filePath).toLowerCase()] ?? FALLBACK_MEDIA_TYPE;
}

export type MediaKind = 'image' | 'audio' | 'resource';

/** image/* and audio/* become image and audio content; everything else an embedded blob resource. */
export function mediaKindOf(mimeType: string): MediaKind {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'resource';
}
