import { z } from 'zod';
import type { AllowedDirectories } from '../security/allowed-directories.js';
import type { GuardedFs } from '../security/guarded-fs.js';
import type { MediaDelivery } from '../media/media-content.js';

/** What every tool group needs: the guarded file system, the allowed list and the limits. */
export interface ToolContext {
  readonly fs: GuardedFs;
  readonly allowed: AllowedDirectories;
  readonly maxMediaBytes: number;
  readonly media: MediaDelivery;
}

/** The official server's result shape for text tools: the text, and the same text as structuredContent. */
export function textResult(text: string) {
  return { content: [{ type: 'text' as const, text }], structuredContent: { content: text } };
}

/** The output schema of every text tool (the official server's): the text as structuredContent.content. */
export const TEXT_OUTPUT = z.object({ content: z.string() });

export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
