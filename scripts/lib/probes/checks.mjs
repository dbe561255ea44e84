// What a case's `expect` says about the responses it got: null when they keep the promise, else why not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `reply: {id, image?}`: one result for that id (with `image`, its image block holds that file as standard base64);
 * `error: {id?, code, reason?}`: one error, with that code (and data.reason); `replies: [ids]`: a result for each id;
 * `silent`: no response at all; `errorIfAny: {code, reason}`: nothing, or one error with that code and data.reason (5.2: a
 * refused payload is answered when its id could be read).
 */
export function checkResponses(expect, responses, dir) {
  if (expect.errorIfAny) {
    if (responses.length === 0) return null;
    const [only] = responses;
    if (responses.length > 1 || !('error' in only)) return `expected nothing or one error (${expect.errorIfAny.code}, ${expect.errorIfAny.reason}), got ${show(responses)}`;
    if (only.error.code !== expect.errorIfAny.code || only.error.data?.reason !== expect.errorIfAny.reason)
      return `expected error ${expect.errorIfAny.code} with data.reason ${expect.errorIfAny.reason}, got ${show(responses)}`;
    return null;
  }
  if (expect.silent) return responses.length === 0 ? null : `expected no response, got ${show(responses)}`;
  if (expect.replies) {
    const ids = responses.filter((r) => 'result' in r).map((r) => r.id);
    const missing = expect.replies.filter((id) => !ids.includes(id));
    return missing.length === 0 && responses.length === expect.replies.length ? null : `expected results for ${JSON.stringify(expect.replies)}, got ${show(responses)}`;
  }
  if (expect.reply) {
    const reply = responses.find((r) => r.id === expect.reply.id);
    if (!reply || !('result' in reply)) return `expected a result for id ${JSON.stringify(expect.reply.id)}, got ${show(responses)}`;
    if (responses.length !== 1) return `expected one response, got ${show(responses)}`;
    if (expect.reply.image) return checkImage(reply.result, join(dir, expect.reply.image), Boolean(expect.reply.bin));
    return null;
  }
  if (expect.error) {
    const error = responses.find((r) => 'error' in r && (expect.error.id === undefined || r.id === expect.error.id));
    if (!error) return `expected an error${expect.error.id === undefined ? '' : ` for id ${expect.error.id}`} (${expect.error.code}), got ${show(responses)}`;
    if (error.error.code !== expect.error.code) return `expected error code ${expect.error.code}, got ${show([error])}`;
    if (expect.error.reason && error.error.data?.reason !== expect.error.reason) return `expected data.reason ${expect.error.reason}, got ${show([error])}`;
    return null;
  }
  return null;
}

/** The image block of a tool result holds the file: as bin with native bytes in force (`bin`), else as standard base64. */
function checkImage(result, path, bin) {
  const block = result?.content?.find?.((c) => c.type === 'image');
  if (!block) return `expected an image block, got ${show([result])}`;
  if (bin) {
    if (!(block.data instanceof Uint8Array)) return `expected bin (native bytes in force), got ${typeof block.data === 'string' ? `text ${JSON.stringify(block.data.slice(0, 40))}` : typeof block.data}`;
    return Buffer.from(block.data).equals(readFileSync(path)) ? null : `the bin is not the file (${block.data.length} bytes)`;
  }
  if (typeof block.data !== 'string') return `expected base64 text (native bytes not negotiated), got ${block.data?.constructor?.name}`;
  const want = readFileSync(path).toString('base64');
  if (block.data !== want) return `image data is not the file in base64: got ${JSON.stringify(block.data.slice(0, 40))} (${block.data.length} chars, want ${want.length})`;
  return null;
}

/** A short picture of what came back, for a failure message. */
export function show(values) {
  const text = JSON.stringify(values, (_key, value) => (value instanceof Uint8Array ? `<bin ${value.length}>` : value));
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}
