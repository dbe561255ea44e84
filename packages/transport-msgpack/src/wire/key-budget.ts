/**
 * The key half of the decode budget (SPEC.md 4.1.9), counted exactly, the same way on both decode paths:
 *
 * - distinct short keys: a JavaScript engine interns each distinct key string and gives it a hidden-class
 *   slot, so a payload of fresh short keys costs far more than its bytes;
 * - distinct map shapes: an engine builds one hidden class (V8 map, JSC structure) per distinct sequence of
 *   keys an object is given, so maps holding the same 15 keys in many orders cost a class per order prefix
 *   although they hold few keys. A map's shape after its k-th key is its first k keys in order; the payload's
 *   shapes are the nodes of the trie of its maps' key sequences, counted here as (shape, key) steps, up to
 *   a map's MAX_SHAPE_KEYS-th key.
 *
 * Keys are told apart by their bytes, never by a hash alone: a sender cannot choose keys that are counted as
 * one. The tables hold offsets into the payload (no key string is built) and grow as needed.
 */
export class KeyBudget {
  /** Distinct short keys so far. */
  shortKeys = 0;
  /** Distinct shapes so far (trie nodes other than the empty shape, 0). */
  shapes = 0;
  // Distinct keys: where each first appears in the payload; keySlots maps a hash to 1 + the key's index.
  private keyAt = new Int32Array(64);
  private keyLength = new Int32Array(64);
  private keySlots = new Int32Array(128);
  private keys = 0;
  // Shape steps: (parent shape, key index) -> child shape, numbered 1, 2, ...; stepSlots maps a hash to the child.
  private stepParent = new Int32Array(64);
  private stepKey = new Int32Array(64);
  private stepSlots = new Int32Array(128);
  // How many keys each shape holds: past MAX_SHAPE_KEYS an engine keeps the object as a dictionary.
  private stepDepth = new Int32Array(64);
  // The step last taken from each shape: maps of one kind repeat their key sequence, and comparing the key's
  // bytes with that step's key finds it without hashing.
  private lastStep = new Int32Array(64);

  constructor(
    private readonly bytes: Uint8Array,
    readonly limit: number,
  ) {}

  /**
   * Notes the key in bytes[at, at + length), given to a map whose shape is `shape` (0 for a new map).
   * Returns the map's shape after it, or OVER_KEYS / OVER_SHAPES once the payload holds more than the limit.
   */
  step(shape: number, at: number, length: number, short: boolean): number {
    if (shape > 0 && this.stepDepth[shape - 1]! >= MAX_SHAPE_KEYS) return this.keyIndex(at, length, short) < 0 ? OVER_KEYS : shape;
    const last = shape < this.lastStep.length ? this.lastStep[shape]! : 0;
    if (last !== 0) {
      const lastKey = this.stepKey[last - 1]!;
      if (this.keyLength[lastKey] === length && sameBytes(this.bytes, this.keyAt[lastKey]!, at, length)) return last;
    }
    const child = this.stepTo(shape, at, length, short);
    if (child > 0) {
      if (shape >= this.lastStep.length) this.lastStep = grownTo(this.lastStep, shape + 1);
      this.lastStep[shape] = child;
    }
    return child;
  }

  private stepTo(shape: number, at: number, length: number, short: boolean): number {
    const key = this.keyIndex(at, length, short);
    if (key < 0) return OVER_KEYS;
    const mask = this.stepSlots.length - 1;
    let slot = (Math.imul(shape, 0x9e3779b1) ^ Math.imul(key, 0x85ebca6b)) & mask;
    for (;;) {
      const child = this.stepSlots[slot]!;
      if (child === 0) break;
      if (this.stepParent[child - 1] === shape && this.stepKey[child - 1] === key) return child;
      slot = (slot + 1) & mask;
    }
    if (++this.shapes > this.limit) return OVER_SHAPES;
    const child = this.shapes;
    if (child > this.stepParent.length) {
      this.stepParent = grown(this.stepParent);
      this.stepKey = grown(this.stepKey);
      this.stepDepth = grown(this.stepDepth);
    }
    this.stepDepth[child - 1] = shape > 0 ? this.stepDepth[shape - 1]! + 1 : 1;
    this.stepParent[child - 1] = shape;
    this.stepKey[child - 1] = key;
    this.stepSlots[slot] = child;
    if (child * 2 > mask) this.rehashSteps();
    return child;
  }

  /** The key's index (its first appearance), counting it if it is new and short; -1 over the limit. */
  private keyIndex(at: number, length: number, short: boolean): number {
    const bytes = this.bytes;
    let hash = 0x811c9dc5 ^ length;
    for (let i = at; i < at + length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
    const mask = this.keySlots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = this.keySlots[slot]!;
      if (entry === 0) break;
      if (this.keyLength[entry - 1] === length && sameBytes(bytes, this.keyAt[entry - 1]!, at, length)) return entry - 1;
      slot = (slot + 1) & mask;
    }
    if (short && ++this.shortKeys > this.limit) return -1;
    const index = this.keys++;
    if (index >= this.keyAt.length) {
      this.keyAt = grown(this.keyAt);
      this.keyLength = grown(this.keyLength);
    }
    this.keyAt[index] = at;
    this.keyLength[index] = length;
    this.keySlots[slot] = index + 1;
    if (this.keys * 2 > mask) this.rehashKeys();
    return index;
  }

  private rehashKeys(): void {
    const slots = new Int32Array(this.keySlots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < this.keys; index++) {
      const at = this.keyAt[index]!;
      const length = this.keyLength[index]!;
      let hash = 0x811c9dc5 ^ length;
      for (let i = at; i < at + length; i++) hash = Math.imul(hash ^ this.bytes[i]!, 0x01000193);
      let slot = hash & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.keySlots = slots;
  }

  private rehashSteps(): void {
    const slots = new Int32Array(this.stepSlots.length * 2);
    const mask = slots.length - 1;
    for (let child = 1; child <= this.shapes; child++) {
      let slot = (Math.imul(this.stepParent[child - 1]!, 0x9e3779b1) ^ Math.imul(this.stepKey[child - 1]!, 0x85ebca6b)) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = child;
    }
    this.stepSlots = slots;
  }
}

/**
 * Keys of one map that can make shapes: V8 holds at most 1,020 properties in a hidden class (its descriptor
 * limit) and JavaScriptCore far fewer before an object becomes a dictionary, which builds no more classes.
 */
export const MAX_SHAPE_KEYS = 1024;

export const OVER_KEYS = -1;
export const OVER_SHAPES = -2;

function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  return grownTo(array, array.length + 1);
}

function grownTo(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  let size = array.length * 2;
  while (size < length) size *= 2;
  const bigger = new Int32Array(size);
  bigger.set(array);
  return bigger;
}

function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}
