import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { buildRef, compareRounds, type Round, roundsText } from '../../scripts/bench/against.js';

/** `pnpm bench --against`: how two builds' interleaved rounds are read, and a ref the clone lacks. */

const rounds = (...cpu: (number | null)[]): Round[] =>
  cpu.map((cpuUs, index) => ({ rps: 100 + index, p99: 10, cpuUs, failed: 0, answered: 500 }));

describe('compareRounds', () => {
  it('says a difference is beyond the spread only when every round of one lies past every round of the other', () => {
    expect(compareRounds(rounds(2_900, 3_100, 2_850), rounds(1_980, 2_200, 2_450)).verdict).toBe(
      'more CPU in every round',
    );
    expect(compareRounds(rounds(1_980, 2_200), rounds(2_900, 3_100)).verdict).toBe('less CPU in every round');
    // Round by round: 2,900 > 1,980 and 1,990 < 2,960 (the third has no pair).
    expect(compareRounds(rounds(2_900, 1_990, 3_100), rounds(1_980, 2_960)).verdict).toBe(
      'rounds overlap; more CPU in 1 of 2 rounds',
    );
  });

  it('reads the ratios of the medians, and will not judge one round', () => {
    const compared = compareRounds(rounds(300, 100, 200), rounds(400, 400));
    expect(compared.cpu).toBe(0.5);
    // req/s 100, 101, 102 against 100, 101: medians 101 and 100.5.
    expect(compared.rps).toBeCloseTo(101 / 100.5, 10);
    expect(compareRounds(rounds(300), rounds(400)).verdict).toBe('too few rounds to tell');
    // A build whose rounds all failed to measure CPU: no ratio.
    expect(compareRounds(rounds(null, null), rounds(400, 400)).cpu).toBeNull();
  });

  it('prints each round in the order it ran', () => {
    expect(roundsText(rounds(3, null, 1), (round) => round.cpuUs)).toBe('3 / - / 1');
    expect(roundsText([], (round) => round.cpuUs)).toBe('-');
  });
});

describe('buildRef', () => {
  it('refuses a ref this clone does not hold, before making any worktree', async () => {
    const repo = path.resolve(import.meta.dirname, '../../../..');
    await expect(buildRef(repo, 'no-such-ref-of-this-clone', Date.now() + 60_000)).rejects.toThrow(
      /not a commit of this clone/,
    );
  });
});
