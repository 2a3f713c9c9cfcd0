/**
 * A fixed-budget slice of `npm run fuzz` in every test run: the same seeded inputs each time, so a
 * failure here is reproducible with `npm run fuzz -- --seed 7 --count 150 --kinds KIND`.
 * (Hangs are the full fuzzer's job: it runs inputs in a worker with a time limit.)
 */
import fc from 'fast-check';
import { arbitraryFor, KINDS, runInput } from './targets.js';

const SEED = 7;
const PER_KIND = 150;

describe.each(KINDS)('fuzz %s', (kind) => {
  test(`${PER_KIND} mutated inputs: no internal error, no silently different trace`, async () => {
    const inputs = fc.sample(arbitraryFor(kind), { seed: SEED, numRuns: PER_KIND });
    const findings: string[] = [];
    const seen = { accepted: 0, rejected: 0 };
    for (const [i, input] of inputs.entries()) {
      const o = await runInput(kind, input);
      if (o.kind === 'internal' || o.kind === 'differs') findings.push(`input ${i} ${JSON.stringify(input, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 300)}: ${o.kind}: ${o.detail.slice(0, 500)}`);
      else seen[o.kind]++;
    }
    expect(findings).toEqual([]);
    // the inputs reach past the first check: some are refused and (except for trace files,
    // whose checksum refuses nearly every mutation) some get all the way through
    expect(seen.accepted + seen.rejected).toBe(PER_KIND);
    if (kind === 'ptx' || kind === 'launch' || kind === 'wire') {
      expect(seen.accepted).toBeGreaterThan(PER_KIND / 10);
      expect(seen.rejected).toBeGreaterThan(PER_KIND / 10);
    }
  });
});
