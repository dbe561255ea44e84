/** A plain object as decoded from either wire: not null, not an array, not bytes (a MessagePack bin). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}
