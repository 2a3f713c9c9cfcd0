/** A fatbinary holding one uncompressed PTX entry for compute_80 (nvcc's container layout), for tests. */
export function fatbin(ptx: string): Uint8Array {
  const text = new TextEncoder().encode(ptx + '\0');
  const entry = new DataView(new ArrayBuffer(64));
  entry.setUint16(0, 1, true); // PTX
  entry.setUint32(4, 64, true);
  entry.setBigUint64(8, BigInt(text.length), true);
  entry.setUint16(24, 0, true); entry.setUint16(26, 8, true);
  entry.setUint32(28, 80, true);
  const head = new DataView(new ArrayBuffer(16));
  head.setUint32(0, 0xba55ed50, true);
  head.setUint16(4, 1, true);
  head.setUint16(6, 16, true);
  head.setBigUint64(8, BigInt(64 + text.length), true);
  const out = new Uint8Array(16 + 64 + text.length);
  out.set(new Uint8Array(head.buffer), 0);
  out.set(new Uint8Array(entry.buffer), 16);
  out.set(text, 80);
  return out;
}
