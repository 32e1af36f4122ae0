import type { Buffer } from "node:buffer";

// CRC-32C (Castagnoli), the checksum an OP_MSG may carry after its sections (flag bit 0).
// Drivers rarely send one, so a table-driven byte loop is fast enough.

const POLYNOMIAL = 0x82f63b78; // reversed 0x1EDC6F41

const TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
  return crc >>> 0;
});

/**
 * The CRC-32C of `bytes[start, end)`, as an unsigned 32-bit number.
 * @example crc32c(Buffer.from("123456789"), 0, 9) // 0xe3069283
 */
export function crc32c(bytes: Buffer, start: number, end: number): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
