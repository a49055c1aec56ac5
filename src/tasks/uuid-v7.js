// @ts-check
/**
 * UUID version 7 (RFC 9562): a 48-bit Unix time in milliseconds, then random bits. Ours rather than a library's
 * because the id is made in every dispatch and its module is loaded in every pi that loads the extension:
 * a few lines here cost less than another package to resolve and evaluate.
 *
 * Ids made by one process sort in the order they were made, also within one millisecond: the 12 bits after
 * the version ("rand_a") count up from a random start, and when they run out the time field moves on by one
 * millisecond (RFC 9562, section 6.2, method 3's idea applied to rand_a).
 */
import { randomBytes } from "node:crypto";

const SEQUENCE_BITS = 0xfff;
/** A new millisecond starts its sequence in the lower half, leaving room to count up. */
const SEQUENCE_START_RANGE = 0x800;

/**
 * A millisecond's first sequence value, from two of the random bytes.
 * @param {Buffer} random
 * @returns {number}
 */
function sequenceStart(random) {
  return (((random[8] ?? 0) << 8) | (random[9] ?? 0)) % SEQUENCE_START_RANGE;
}

/**
 * A generator with its own clock state; the extension uses one per process (`uuidV7`).
 * @returns {(now?: number) => string}
 */
export function createUuidV7Generator() {
  let lastMs = -1;
  let sequence = 0;
  return (now = Date.now()) => {
    const random = randomBytes(10);
    if (now > lastMs) {
      lastMs = now;
      sequence = sequenceStart(random);
    } else if (sequence < SEQUENCE_BITS) {
      sequence++;
    } else {
      lastMs++;
      sequence = sequenceStart(random);
    }
    const bytes = Buffer.alloc(16);
    bytes.writeUIntBE(lastMs, 0, 6);
    bytes[6] = 0x70 | (sequence >> 8);
    bytes[7] = sequence & 0xff;
    random.copy(bytes, 8, 0, 8);
    bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
    const hex = bytes.toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** @type {(now?: number) => string} */
export const uuidV7 = createUuidV7Generator();
