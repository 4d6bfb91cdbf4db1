import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { InputError } from "../../errors.js";

/**
 * A bounded check of a GGUF file's header against the file's own size, before node-llama-cpp's parser sees it.
 * Its parser believes the counts it reads: an 88-byte file declaring 2^62 metadata entries kept it looping (and
 * allocating) for minutes. Here every count and length is first compared with the bytes that remain — a count
 * times the smallest size one entry can have, a string length, an array length times its element size — so a
 * lying file is refused at the offset of the lie, having read at most the file once through a fixed window and
 * allocated nothing in proportion to what it declares. Layout: ggml's docs/gguf.md (v2 and v3: little-endian,
 * 64-bit counts and lengths); what llama.cpp refuses anyway (v1, nested arrays, over 4 dimensions) is refused here.
 */

export interface GgufSummary {
  version: number;
  tensorCount: number;
  metadataCount: number;
  alignment: number;
  /** Where the tensor data starts. */
  dataOffset: number;
  /** Bytes this check read from the file (each at most once). */
  bytesRead: number;
}

const HINT = "The file is damaged, cut short or not a GGUF model: download it again, or choose another .gguf file.";

/** Smallest size of a string on disk: its u64 length. */
const STRING_MIN = 8;
/** key string + value type + the smallest value (one byte). */
const KV_MIN = STRING_MIN + 4 + 1;
/** name string + dimension count + type + offset (and no dimensions: the smallest possible). */
const TENSOR_INFO_MIN = STRING_MIN + 4 + 4 + 8;
/** Metadata keys and tensor names are identifiers; longer ones are refused rather than read into memory. */
const MAX_NAME_BYTES = 65_536;
const MAX_DIMS = 4;

/** Fixed-size metadata value types: type id → bytes. 8 (string) and 9 (array) are variable. */
const FIXED_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const TYPE_STRING = 8;
const TYPE_ARRAY = 9;
const TYPE_U32 = 4;

/**
 * ggml tensor types whose block layout is certain: type id → [elements per block, bytes per block]. A tensor of
 * another type is checked for its offset only, never refused for its size.
 */
const BLOCK: Record<number, readonly [number, number]> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  9: [32, 36], // Q8_1
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  30: [1, 2], // BF16
};
/** ggml knows fewer tensor types than this (GGML_TYPE_COUNT is 40 in the pinned llama.cpp); ids past it are refused. */
const MAX_TENSOR_TYPE = 64;

const WINDOW = 1 << 20;

/** Reads the file forward through one fixed window; every read first checks that the bytes exist. */
class BoundedReader {
  private readonly window = Buffer.alloc(WINDOW);
  private windowStart = 0;
  private windowEnd = 0;
  pos = 0;
  bytesRead = 0;
  /** The last u64 read, exactly (for messages: a lie past 2^53 is shown as written). */
  lastU64 = 0n;

  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly fail: (offset: number, what: string) => never,
  ) {}

  get remaining(): number {
    return this.size - this.pos;
  }

  /** Fails, naming `offset` (where the field that declared it starts), unless `n` bytes remain. */
  need(n: number, what: string, offset = this.pos): void {
    if (!(n <= this.remaining)) this.fail(offset, `${what} needs ${show(n)} bytes, but only ${this.remaining} remain in the file`);
  }

  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    if (this.pos < this.windowStart || this.pos + n > this.windowEnd) {
      const length = Math.min(WINDOW, this.size - this.pos);
      const got = readSync(this.fd, this.window, 0, length, this.pos);
      this.bytesRead += got;
      this.windowStart = this.pos;
      this.windowEnd = this.pos + got;
      if (n > got) this.fail(this.pos, `${what}: the file ended while it was read`);
    }
    const at = this.pos - this.windowStart;
    this.pos += n;
    return this.window.subarray(at, at + n);
  }

  u32(what: string): number {
    return this.bytes(4, what).readUInt32LE(0);
  }

  /** A u64 as a number; past 2^53 it cannot describe bytes of any file, so it is kept as Infinity for the checks. */
  u64(what: string): number {
    const v = this.bytes(8, what).readBigUInt64LE(0);
    this.lastU64 = v;
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
  }

  skip(n: number, what: string, offset = this.pos): void {
    this.need(n, what, offset);
    this.pos += n;
  }

  /** A string's length, checked against the bytes that remain; the string itself is skipped. */
  skipString(what: string): void {
    const at = this.pos;
    const length = this.u64(`${what} length`);
    this.skip(length, `${what} (declared ${this.lastU64} bytes long)`, at);
  }

  /** A short string, read: keys and names, capped. */
  name(what: string): string {
    const at = this.pos;
    const length = this.u64(`${what} length`);
    this.need(length, `${what} (declared ${this.lastU64} bytes long)`, at);
    if (length > MAX_NAME_BYTES) this.fail(at, `${what} is declared ${length} bytes long; names are at most ${MAX_NAME_BYTES}`);
    return this.bytes(length, what).toString("utf8");
  }
}

const show = (n: number): string => (Number.isFinite(n) ? String(n) : "over 2^53");

/**
 * Checks the header of the GGUF file at `file` (magic, version, counts, every metadata entry and tensor info,
 * alignment, tensor extents) against the file's size. Throws an InputError naming the file, the byte offset and
 * what is wrong; returns what it read.
 */
export function checkGgufFile(file: string): GgufSummary {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const fail = (offset: number, what: string): never => {
      throw new InputError(`${file}: not a usable GGUF file: at byte ${offset}, ${what}`, { file, hint: HINT, hintIds: ["model"] });
    };
    const r = new BoundedReader(fd, size, fail);
    const magic = r.bytes(4, "the GGUF magic").toString("latin1");
    if (magic !== "GGUF") fail(0, `the file does not start with "GGUF" (it starts with ${JSON.stringify(magic)})`);
    const version = r.u32("the version");
    if (version === 1) fail(4, "GGUF version 1 is not read by llama.cpp any more");
    if (version !== 2 && version !== 3) fail(4, `unknown GGUF version ${version}${version > 0xffff ? " (a big-endian file?)" : ""}`);

    const tensorAt = r.pos;
    const tensorCount = r.u64("the tensor count");
    const tensorText = String(r.lastU64);
    const metadataAt = r.pos;
    const metadataCount = r.u64("the metadata entry count");
    const metadataText = String(r.lastU64);
    // Both counts against the bytes that remain, before a single entry is read.
    r.need(metadataCount * KV_MIN, `${metadataText} metadata entries (at least ${KV_MIN} bytes each)`, metadataAt);
    r.need(tensorCount * TENSOR_INFO_MIN, `${tensorText} tensor infos (at least ${TENSOR_INFO_MIN} bytes each)`, tensorAt);
    r.need(metadataCount * KV_MIN + tensorCount * TENSOR_INFO_MIN, `${metadataText} metadata entries and ${tensorText} tensor infos`, metadataAt);

    let alignment = 32;
    for (let i = 0; i < metadataCount; i++) {
      const entryAt = r.pos;
      const key = r.name(`the key of metadata entry ${i}`);
      const typeAt = r.pos;
      const type = r.u32(`the value type of "${key}"`);
      if (key === "general.alignment") {
        if (type !== TYPE_U32) fail(typeAt, `"general.alignment" has value type ${type}, not u32`);
        const valueAt = r.pos;
        alignment = r.u32(`the value of "general.alignment"`);
        if (alignment === 0 || (alignment & (alignment - 1)) !== 0) fail(valueAt, `"general.alignment" is ${alignment}, not a power of two`);
        continue;
      }
      skipValue(r, type, `"${key}"`, typeAt, fail);
      // Each entry moved forward, so the loop ends within the file whatever the count said.
      if (r.pos <= entryAt) fail(entryAt, "a metadata entry of no size");
    }

    r.need(tensorCount * TENSOR_INFO_MIN, `${tensorText} tensor infos (at least ${TENSOR_INFO_MIN} bytes each) after the metadata`, tensorAt);
    // Extents are checked once the data offset is known; only the largest end matters for the file size.
    const extents: Array<{ name: string; at: number; offset: number; bytes: number | undefined }> = [];
    for (let i = 0; i < tensorCount; i++) {
      const infoAt = r.pos;
      const name = r.name(`the name of tensor ${i}`);
      const dimsAt = r.pos;
      const dims = r.u32(`the dimension count of tensor "${name}"`);
      if (dims > MAX_DIMS) fail(dimsAt, `tensor "${name}" has ${dims} dimensions; ggml tensors have at most ${MAX_DIMS}`);
      let elements = 1;
      for (let d = 0; d < dims; d++) {
        const n = r.u64(`dimension ${d} of tensor "${name}"`);
        elements *= n;
      }
      const typeAt = r.pos;
      const type = r.u32(`the type of tensor "${name}"`);
      if (type >= MAX_TENSOR_TYPE) fail(typeAt, `tensor "${name}" has type ${type}, which no ggml version knows`);
      const offsetAt = r.pos;
      const offset = r.u64(`the data offset of tensor "${name}"`);
      if (!Number.isFinite(elements)) fail(dimsAt, `tensor "${name}" declares more than 2^53 elements`);
      const block = BLOCK[type];
      if (block && elements % block[0] !== 0) fail(dimsAt, `tensor "${name}" has ${elements} elements, not whole blocks of ${block[0]} for its type ${type}`);
      extents.push({ name, at: offsetAt, offset, bytes: block ? (elements / block[0]) * block[1] : undefined });
      if (r.pos <= infoAt) fail(infoAt, "a tensor info of no size");
    }

    const dataOffset = Math.ceil(r.pos / alignment) * alignment;
    const dataBytes = size - dataOffset;
    if (tensorCount > 0 && dataBytes < 0) fail(r.pos, `the tensor data should start at byte ${dataOffset} (aligned to ${alignment}), past the end of the ${size}-byte file`);
    for (const t of extents) {
      if (t.offset % alignment !== 0) fail(t.at, `tensor "${t.name}" starts at data offset ${show(t.offset)}, not a multiple of the alignment ${alignment}`);
      const end = t.offset + (t.bytes ?? 0);
      if (!(end <= dataBytes)) fail(t.at, `tensor "${t.name}" needs data bytes ${show(t.offset)} to ${show(end)}, but the file holds ${Math.max(0, dataBytes)} bytes of tensor data`);
    }
    return { version, tensorCount, metadataCount, alignment, dataOffset, bytesRead: r.bytesRead };
  } finally {
    closeSync(fd);
  }
}

/** Skips one metadata value of type `type`, checking every length and count against the bytes that remain. */
function skipValue(r: BoundedReader, type: number, what: string, typeAt: number, fail: (offset: number, what: string) => never): void {
  const fixed = FIXED_SIZE[type];
  if (fixed !== undefined) return r.skip(fixed, `the value of ${what}`);
  if (type === TYPE_STRING) return r.skipString(`the string value of ${what}`);
  if (type !== TYPE_ARRAY) return fail(typeAt, `${what} has value type ${type}, which GGUF does not define`);
  const elementAt = r.pos;
  const element = r.u32(`the element type of the array ${what}`);
  const countAt = r.pos;
  const count = r.u64(`the length of the array ${what}`);
  const countText = String(r.lastU64);
  if (element === TYPE_ARRAY) fail(elementAt, `${what} is an array of arrays, which llama.cpp does not read`);
  const elementFixed = FIXED_SIZE[element];
  if (elementFixed === undefined && element !== TYPE_STRING) fail(elementAt, `the array ${what} has element type ${element}, which GGUF does not define`);
  const min = elementFixed ?? STRING_MIN;
  r.need(count * min, `the array ${what} of ${countText} elements (at least ${min} bytes each)`, countAt);
  if (elementFixed !== undefined) return r.skip(count * elementFixed, `the array ${what}`, countAt);
  for (let i = 0; i < count; i++) r.skipString(`element ${i} of the array ${what}`);
}
