/**
 * POST confirm of 5-line drafts: on products without a quota, and on the create row's lines
 * (two limited products shared by every order), read against the 5-line create's rate.
 */
import { createBody, fiveLines, type Lines, unlimitedFive } from './bodies.js';
import { seconds } from './options.js';
import type { Scenario } from './rows.js';

/**
 * Drafts of `lines` to confirm, one per request and enough for the scenario's time at the
 * 5-line create's rate (`createRate`, measured just before), confirmed in turn (target: 0.8 x
 * the create).
 */
export const confirmationsOf =
  (createOrder: (body: unknown) => Promise<number>, createRate: () => number | undefined) =>
  async (lines: Lines, body: object) => {
    // A confirm can run at three times a create's rate (measured): four times the drafts a create row makes.
    const wantedDrafts = Math.ceil((createRate() ?? 1_000) * seconds * 4);
    const drafts: number[] = [];
    while (drafts.length < wantedDrafts)
      drafts.push(
        ...(await Promise.all(
          Array.from({ length: 16 }, () => createOrder({ ...createBody, details: lines, status: 'draft' })),
        )),
      );
    return { rotate: drafts.map((id) => ({ path: `/api/sales-orders/${id}/confirm`, body })) };
  };

export const confirmScenarios = ({
  origin,
  confirmations,
}: {
  origin: string;
  confirmations: ReturnType<typeof confirmationsOf>;
}): Scenario[] => [
  {
    // Products 1 (an unlimited licence) and 6 (no licence needed): no quota, no lock.
    name: 'POST confirm (5 lines, no limited product)',
    against: 'create-rate',
    method: 'POST',
    url: origin,
    prepare: () => confirmations(unlimitedFive, {}),
  },
  {
    // The create row's lines: products 2 and 3 have limited licences, shared by every order,
    // so each confirm takes their quota locks; the quota is overridden, not run out.
    name: "POST confirm (the create row's 5 lines, 2 limited products shared)",
    against: 'create-rate',
    method: 'POST',
    url: origin,
    prepare: () => confirmations(fiveLines, { acknowledge_warnings: true }),
  },
];
