/**
 * The device allocator of `ptxdbg exec` (Device over GlobalArena) without a program: sizes a
 * size_t may hold, size 0, freed memory quarantined and then reused as one block, and what
 * cudaMemGetInfo reports. Expected values by hand from the sizes involved.
 */
import { Device } from '../../src/host/device.js';
import { CudaError } from '../../src/host/errors.js';

const MiB = 2 ** 20;
const codeOf = (f: () => unknown): number | undefined => {
  try { f(); } catch (e) { if (e instanceof CudaError) return e.code; throw e; }
  return undefined;
};

test('a size no device holds is cudaErrorMemoryAllocation (2), up to 2^64 - 1; size 0 is the null pointer', () => {
  const d = new Device(64 * MiB);
  expect(codeOf(() => d.malloc(2n ** 64n - 1n, 'device'))).toBe(2);
  expect(codeOf(() => d.malloc(65 * MiB, 'device'))).toBe(2);
  expect(d.malloc(0, 'device')).toBe(0n);
  const before = d.memInfo();
  expect(before.total).toBe(64 * MiB);
  d.free(0n); // cudaFree(NULL): no operation
  expect(d.memInfo()).toEqual(before);
});

test('freed memory is quarantined, named by a stale access, and reused as one block when nothing else fits', () => {
  const d = new Device(64 * MiB);
  const free0 = d.memInfo().free;
  const a = d.malloc(20 * MiB, 'device');
  d.write(a + BigInt(20 * MiB - 4), new Uint8Array([1, 2, 3, 4]));
  d.free(a);
  // while quarantined a stale pointer names what it pointed into
  let msg = '';
  try { d.read(a + 8n, 4); } catch (e) { msg = (e as Error).message; }
  expect(msg).toContain('are in cudaMalloc #1 (20971520 bytes), freed by cudaFree before the first launch');
  // the next allocation goes elsewhere while there is room
  const b = d.malloc(20 * MiB, 'device');
  expect(b).not.toBe(a);
  d.free(b);
  // freed bytes count as free: cudaMemGetInfo is back where it started
  expect(d.memInfo().free).toBe(free0);
  // 40 MiB fits only where both freed blocks were, merged: they are handed out, zeroed
  const c = d.malloc(40 * MiB, 'device');
  expect(c).toBe(a);
  expect([...d.read(c + BigInt(20 * MiB - 4), 4)]).toEqual([0, 0, 0, 0]);
  expect(codeOf(() => d.malloc(24 * MiB, 'device'))).toBe(2);
});
