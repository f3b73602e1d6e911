/**
 * One service to drive, what its scenarios need made on it first, and one scenario's run on it.
 * `pnpm bench --against` prepares two, the current build's and another's, with the same calls.
 */
import { SignJWT } from 'jose';

import { createBody, fiveLines } from './bodies.js';
import { confirmationsOf } from './confirm.js';
import { historyConfirmationsOf } from './licence.js';
import { load } from './load.js';
import { secret } from './options.js';
import { peakRss } from './processes.js';
import type { Scenario } from './rows.js';
import { setupCalls } from './setup.js';
import { prepareUpdates } from './update.js';
import { startBenchReceiver, webhookLatency } from './webhooks.js';

/** The bench's callers' headers: every permission, and the same caller scoped to one location. */
export const callers = async () => {
  const token = await new SignJWT({ permissions: ['*'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  // The same caller scoped to the location the measured orders are in (a `locations` claim).
  const scopedToken = await new SignJWT({ permissions: ['*'], locations: [createBody.location_id] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-scoped')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  return {
    headers: { authorization: `Bearer ${token}` },
    scopedHeaders: { authorization: `Bearer ${scopedToken}` },
  };
};

/**
 * The service at `origin` and what its scenarios need made on it first, over HTTP only: the
 * orders they read and update. `createRate` is the service's 5-line create rate once measured
 * (how many drafts a confirm row needs).
 */
export const prepareTarget = async (
  origin: string,
  headers: Record<string, string>,
  createRate: () => number | undefined,
  databaseUrl?: string,
) => {
  const { setupCall, createOrder } = setupCalls(origin, headers);
  const orderId = await createOrder(createBody);
  // The same lines 100 times over: the read's cost growth with the line count.
  const largeOrderId = await createOrder({
    ...createBody,
    details: Array.from({ length: 100 }, () => fiveLines).flat(),
  });
  const { putFive, putFiveHundred } = await prepareUpdates(createOrder);
  return {
    origin,
    headers,
    setupCall,
    createOrder,
    orderId,
    largeOrderId,
    putFive,
    putFiveHundred,
    createRate,
    confirmations: confirmationsOf(createOrder, createRate),
    databaseUrl,
    historyConfirmations: historyConfirmationsOf(databaseUrl),
  };
};
export type Target = Awaited<ReturnType<typeof prepareTarget>>;

/**
 * Runs one scenario on `target`'s service (process `pid`): its preparation, a webhook receiver
 * and endpoint when it has one (with the commit -> receipt latency after the load when
 * `webhookLatencies`), then its load.
 */
export const runScenario = async (
  target: Target,
  {
    name: _name,
    against: _against,
    floor: _floor,
    pgFloor: _pgFloor,
    unscoped: _unscoped,
    floorTarget: _target,
    cpuCap: _cap,
    history: _history,
    bound: _bound,
    webhook,
    prepare,
    ...listed
  }: Scenario,
  pid: number | undefined,
  webhookLatencies = true,
) => {
  const { origin, headers, setupCall, createOrder } = target;
  const scenario = { ...listed, ...(await prepare?.()) };
  const receiver = webhook ? await startBenchReceiver() : undefined;
  const endpoint = receiver
    ? ((await setupCall(`${origin}/api/webhook-endpoints`, 201, { url: receiver.url })) as { data: { id: number } })
        .data.id
    : undefined;
  try {
    const measured = await peakRss(pid, () => load({ headers, ...scenario }, pid));
    const webhookFigures =
      receiver && webhookLatencies
        ? await webhookLatency(receiver, {
            created: measured.result.answered - measured.result.failed,
            create: () => createOrder(createBody),
          })
        : undefined;
    return { ...measured, webhookFigures };
  } finally {
    if (endpoint !== undefined) {
      await fetch(`${origin}/api/webhook-endpoints/${endpoint}`, { method: 'DELETE', headers });
    }
    await receiver?.close();
  }
};
